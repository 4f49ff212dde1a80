"""The numba cache patch (`cadence.kernels._numba_cache`) against the numba installed here.

These fail loudly when numba's private cache API moves: the patch would then
turn caching off silently, and a stale kernel could survive an edit to `_scalar.py` or `_rowwise.py`.
"""

from pathlib import Path

from cadence.kernels import _numba_cache, _rowwise, _scalar, cpu_kernels


def test_numbas_private_cache_api_is_where_the_patch_expects_it():
    api = _numba_cache.cache_api()
    assert api is not None, (
        "numba.core.caching no longer has CacheImpl._locator_classes or one of "
        f"{_numba_cache.LOCATOR_BASES}: update kernels/_numba_cache.py for this numba"
    )
    impl, bases = api
    for base in bases:
        assert callable(base.from_function) and callable(base.get_source_stamp), base
        assert any(issubclass(c, base) for c in impl._locator_classes), base


def test_the_cpu_table_installs_the_patch_first_and_caches():
    cpu = cpu_kernels()
    assert cpu._CACHE is True
    impl, bases = _numba_cache.cache_api()  # type: ignore[misc]
    ours = impl._locator_classes[: len(bases)]
    assert [getattr(c, "_cadence_scalar_aware", False) for c in ours] == [True] * len(
        bases
    )
    assert [c.__mro__[1] for c in ours] == bases


def test_the_source_stamp_covers_the_shared_math():
    import hashlib

    cpu_kernels()
    impl, bases = _numba_cache.cache_api()  # type: ignore[misc]
    kernel = cpu_kernels()._unary
    locator = None
    for cls in impl._locator_classes[: len(bases)]:
        locator = cls.from_function(kernel.py_func, kernel.py_func.__code__.co_filename)
        if locator is not None:
            break
    assert locator is not None
    stamp = locator.get_source_stamp()
    digest = hashlib.sha256()
    for source in (
        _scalar.__file__,
        _rowwise.__file__,
    ):  # the files `_cpu` compiles from
        digest.update(Path(source).read_bytes())
    assert stamp[1] == digest.hexdigest()


def test_other_files_keep_numbas_own_locators():
    impl, _ = _numba_cache.cache_api()  # type: ignore[misc]
    cpu_kernels()
    ours = impl._locator_classes[0]

    def elsewhere():
        return 1

    assert ours.from_function(elsewhere, __file__) is None
