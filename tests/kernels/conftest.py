import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "kernels-ci",
    max_examples=20,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "kernels-dev",
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("kernels-ci" if os.environ.get("CI") else "kernels-dev")
