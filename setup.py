"""The package's compiled steps, built when a C compiler is there (else numpy does them)."""
from setuptools import Extension, setup

# optional: without a compiler the install goes on and these steps run in numpy;
# no fused multiply-add: the compiled steps must round exactly as the numpy ones do
_FLAGS = dict(optional=True, extra_compile_args=["-O2", "-ffp-contract=off"])

setup(
    ext_modules=[
        Extension("c45rules.rules._climb", ["c45rules/rules/_climb.c"], **_FLAGS),
        Extension("c45rules.tree._grow", ["c45rules/tree/_grow.c"], **_FLAGS),
    ]
)
