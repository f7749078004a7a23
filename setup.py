"""The package's one compiled step, built when a C compiler is there (else numpy does it)."""
from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "c45rules.rules._climb",
            ["c45rules/rules/_climb.c"],
            # optional: without a compiler the install goes on and the search runs in numpy
            optional=True,
            # no fused multiply-add: the climb must round exactly as the numpy one does
            extra_compile_args=["-O2", "-ffp-contract=off"],
        )
    ]
)
