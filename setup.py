"""The package's compiled steps, built when a C compiler is there (else numpy does them)."""
from setuptools import Extension, setup


def _step(name: str) -> Extension:
    return Extension(
        f"c45rules.rules.{name}",
        [f"c45rules/rules/{name}.c"],
        # optional: without a compiler the install goes on and numpy does the step
        optional=True,
        # no fused multiply-add: the compiled steps must round exactly as numpy does
        extra_compile_args=["-O2", "-ffp-contract=off"],
    )


setup(ext_modules=[_step("_climb"), _step("_generalize")])
