from hypothesis import settings

from tests.helpers.profiles import slow_examples

settings.register_profile("kernels", slow_examples(20))
settings.load_profile("kernels")
