"""The package's compiled steps, built when a C compiler is there (else numpy does them)."""
from setuptools import Extension, setup


def _step(path: str) -> Extension:
    return Extension(
        path.replace("/", "."),
        [f"{path}.c"],
        depends=["c45rules/rules/_varint.h", "c45rules/rules/_pages.h", "c45rules/rules/_pairwise.h", "c45rules/data/_mix.h"],
        # optional: without a compiler the install goes on and numpy does the step
        optional=True,
        # no fused multiply-add: the compiled steps must round exactly as numpy does
        extra_compile_args=["-O2", "-ffp-contract=off"],
    )


setup(ext_modules=[_step("c45rules/_libm"), _step("c45rules/data/_distinct"), _step("c45rules/data/_cells"), _step("c45rules/data/_plaincsv"), _step("c45rules/tree/_grow"), _step("c45rules/tree/_subset"), _step("c45rules/rules/_generalize"), _step("c45rules/rules/_climb"), _step("c45rules/rules/_regress"), _step("c45rules/model/_match"), _step("c45rules/imports/_pool")])
