"""Code several test folders share: import it as `tests.helpers.<module>`.

The repository root is on `sys.path` during a test run (`pythonpath` in pyproject.toml),
so these modules import by name; the test files themselves stay outside any package.
"""
