"""PyMC's own logprob tests stock and with ``relations.pymc.install()``: ``python benchmarks/peer_pymc.py --tests DIR``.

Issue 45's peer-suite target: PyMC's own ``tests/logprob`` (the newest
versions the search tool's index holds, adapted to the installed PyMC where
an API moved) pass with ``relations.pymc.install()`` wherever they pass
stock.  This script

1. checks that ``DIR`` holds the test files of :data:`MANIFEST` (PyMC's
   repository is too large for the ``fetch`` tool, 718 MB against 500 MB, so
   the files are read with the search tool's ``find_string`` / ``read_file``
   into a directory outside this repository; PyMC's code is never copied
   here) and says which differ from the copies measured (their SHA-256);
2. writes ``DIR/pytest.ini`` with PyMC's pytest settings that matter
   (``xfail_strict = true``, from its ``pyproject.toml``);
3. runs the files (``--files``, default all of :data:`MANIFEST`'s test
   files) in a subprocess twice, :data:`EXCLUDED` deselected in both: stock,
   and with a pytest plugin (``-p``) that imports ``relations`` from this
   checkout and calls ``relations.pymc.install()`` at session start (before
   the test modules import ``pymc.logprob.basic.logp`` and friends);
4. prints, per file and run, the count of each outcome (passed, failed,
   error, skipped, xfailed), every test whose outcome differs (id, stock,
   installed, the message, and what ``relations.pymc`` did during it), and
   in how many tests the installed run took another path than stock:
   ``logp`` calls refused before stock (a broadcast random variable),
   ``logp`` calls past a stock failure (the measurable rules' forms tried),
   stock densities cross-checked against a censoring-outermost form, and
   ``conditional_logp`` calls past a stock failure.

The files (``DIR/tests/...``; ``tests/__init__.py`` and
``tests/logprob/__init__.py`` empty, ``tests/distributions/__init__.py``
too).  The index holds file versions, not whole snapshots: each file is the
newest version its ``find_string`` selection holds (the one with the highest
index id, checked against the installed PyMC's API), read with
``read_file(id=...)``, which names no commit; where ``read_file`` named one
it is given.  Every version is 2024-2026 (``Copyright 2024 - present``;
``test_switch.py`` is ``2026 - present`` and cites pymc #8100 and #8301).
Their license header is shortened to one line and a note of the
adaptations is added on top; nothing else changed but what ``ADAPTED`` marks:

==========================================  ==============  ==========================================
file                                        index id        adaptation (installed PyMC 6.4.0, PyTensor 3.3.8)
==========================================  ==============  ==========================================
tests/conftest.py                           52898438389     none
tests/logprob/utils.py                      1441712213      none
tests/logprob/test_abstract.py              36502903597     none
tests/logprob/test_arithmetic.py            36209387914     none (commit 4be31bf2bd1f)
tests/logprob/test_basic.py                 66981020600     none
tests/logprob/test_binary.py                1105233143      none
tests/logprob/test_censoring.py             54554254136     none
tests/logprob/test_checks.py                1216021516      none (its helper: see test_multivariate.py)
tests/logprob/test_composite_logprob.py     1295681448      MeasurableVariable -> MeasurableOp;
                                                            construct_ir_fgraph returns the FunctionGraph
tests/logprob/test_cumsum.py                1238028976      none
tests/logprob/test_linalg.py                16854946706     none (commit 1249c862331d)
tests/logprob/test_mixture.py               575750495       MeasurableVariable -> MeasurableOp;
                                                            construct_ir_fgraph returns the FunctionGraph;
                                                            AdvancedSubtensor1 dropped; the
                                                            compute_test_value decorator dropped
tests/logprob/test_order.py                 1239649223      get_measure_type_info import made optional
tests/logprob/test_rewriting.py             1266355567      AdvancedIncSubtensor1 dropped;
                                                            pt.nlinalg.svd -> pt.linalg.svd
tests/logprob/test_scan.py                  54943045094     none (commit 1f96a43c7400)
tests/logprob/test_switch.py                36853581201     ``function`` from ``pytensor`` (not
                                                            ``pytensor.compile.function``)
tests/logprob/test_tensor.py                71080849419     none
tests/logprob/test_transform_value.py       1216242138      MeasurableVariable -> MeasurableOp;
                                                            numdifftools.Jacobian and
                                                            scipy.misc.derivative (gone from SciPy 1.18)
                                                            replaced by central differences
tests/logprob/test_transforms.py            1241227879      np.full(None, ...) -> np.full((), ...)
                                                            (NumPy 2.5 refuses None as a shape)
tests/logprob/test_utils.py                 1234626467      MeasurableVariable -> MeasurableOp;
                                                            pytensor.clone_replace ->
                                                            pytensor.graph.replace.clone_replace
tests/distributions/test_multivariate.py    (helper)        only ``dirichlet_logpdf`` (and ``betafn``,
                                                            ``logpow``), after ids 598586743 / 3701085349,
                                                            per row
tests/distributions/test_transform.py       (helper)        only ``check_jacobian_det``, after id
                                                            1977055026; ``jacobian(x, y)`` for
                                                            ``jacobian(x, [y])`` (a list now gives a
                                                            list), ``pt.linalg.det``
==========================================  ==============  ==========================================

To rebuild ``DIR``: for each row, ``read_file(id=...)`` (pages of 16,000
characters, ``offset=``), write the text under ``DIR/<file>``, then apply the
adaptation (each is a one-line import or call change, marked ``ADAPTED`` in
the measured copies); :data:`MANIFEST` holds the SHA-256 of the measured
copies, which the script checks.

:data:`EXCLUDED` (deselected in both runs) are the tests that fail on the
installed PyMC stock because the snapshot is newer or older than it (an API
or a behaviour moved), each with the reason; :data:`STOCK_GAPS` the stock
failures kept (logps the installed PyMC cannot derive: the installed run may
derive them); :data:`LIFTED` the stock passes that only pin PyMC's refusal of
a graph ``relations.pymc`` derives, with how the derived density was checked.  Exit status 0 whatever the
outcomes (it is a measurement), 2 on a setup error (no ``DIR``, no file).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from peer_pytensor import outcomes, run_logged  # noqa: E402  (the JUnit reading and the logged run both share)

#: file -> SHA-256 of the copy measured (see the module docstring for its index id and adaptation)
MANIFEST: dict[str, str] = {
    "tests/__init__.py": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "tests/conftest.py": "412a1807bff3d98f3831acf0e54d76bd5949eef16973b3065d759c441298cf72",
    "tests/distributions/__init__.py": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "tests/distributions/test_multivariate.py": "c6782ef0217a3c47aad878f900aa9a92f761cc8a8ef51acd1de606fa701b5d88",
    "tests/distributions/test_transform.py": "82e6422dc0b1b62f544d7a10a01eaa6e5b1932abaf071b24d8b02330206ed8b5",
    "tests/logprob/__init__.py": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "tests/logprob/test_abstract.py": "55378798a622b71e649524408abf6dfae461d496adce61371df3c29b81f6d280",
    "tests/logprob/test_arithmetic.py": "03ee972ac592e70c729c19736101826d055db26001642aa733daa562cc7e3405",
    "tests/logprob/test_basic.py": "81b785483bde586d51a50c45c14bbf7d4baa3a2033bd2d315ecec799c91ecda1",
    "tests/logprob/test_binary.py": "4f83d9399f8b18a73d550568900cfa9d8db2250b06a5bf9ed06531c1506636d5",
    "tests/logprob/test_censoring.py": "1f6b3b124cdf78b9e2590a0513687ed850dc26249f77f2ccc2a23dcd0f4020ec",
    "tests/logprob/test_checks.py": "0d8b6811931e220527f5b4f54a9749aac14daed0e12a2cea4d2e10063c7d98e7",
    "tests/logprob/test_composite_logprob.py": "5d3333176d0eca8b7a3a101d421f854575f0a48f9f12db12a740234433494223",
    "tests/logprob/test_cumsum.py": "b48401095c8c6afa4345626a87f0992267315667066519b8012863b9d0ea4d36",
    "tests/logprob/test_linalg.py": "d6deb4557ce2d073f0a3835fb338d8497024751bb5fe09be3caae1e91c54fd42",
    "tests/logprob/test_mixture.py": "6b16ba399a8a0b9be6a4d7fc956fe8bf679ec012f45d4f258172e0fe85470187",
    "tests/logprob/test_order.py": "918596e8ea8ea474e87ffab3d593824996628e1c88d47d26de5a66a346bca4db",
    "tests/logprob/test_rewriting.py": "b879689fd8945a9b6b9cfbbb7d5a6fae89fda206870638d46baf4f7e00ddbc73",
    "tests/logprob/test_scan.py": "64dc0b874ade044707052378b7ad2990119d2c0663efbb9c7ee2d7277806db3c",
    "tests/logprob/test_switch.py": "34db1eaa451f952ed9b9f6c7bd7ef9965ea85106756347eab1afeb718ca2cac2",
    "tests/logprob/test_tensor.py": "2600f3cd58fb4567b4eb39c0c982a284a78db7caa66e57371ed444ceb01ac57c",
    "tests/logprob/test_transform_value.py": "86b4574c05202bae7b21930574fe909c54facd65b5633764219241f59daa5fac",
    "tests/logprob/test_transforms.py": "3719315ba8a2641e744f3d3e4f32d3d2570de964c4c19e714cae4751db10af4b",
    "tests/logprob/test_utils.py": "ae26331f4c0d854bcd1faeaf4cbf0ea93b9555ea0c185cb46e79b00819e71d66",
    "tests/logprob/utils.py": "f7ab68e7c67d69c1c20ae21bcf60aa78439ed7118de4e0e0fbb2099cf3bb0312",
}

#: test id (or a prefix of ids) -> why it is deselected in both runs: it fails on the installed PyMC stock
#: because an API, an IR detail or a behaviour moved between the snapshot and the installed PyMC 6.4.0 /
#: PyTensor 3.3.8 / NumPy 2.5 (not a logp the installed PyMC lacks: those are STOCK_GAPS, kept)
_L = "tests/logprob/"
EXCLUDED: dict[str, str] = {
    _L + "test_basic.py::test_joint_logp_over_multiple_values": "the snapshot's joint-logp protocol (measured_outputs, one _logprob call for all values of a node) is newer than the installed PyMC",
    _L + "test_composite_logprob.py::test_unvalued_ir_reversion": "counts MeasurableOp nodes of the IR: the installed IR keeps 3/4 where the snapshot's keeps 2",
    _L + "test_mixture.py::test_compute_test_value": "test values (compute_test_value, tag.test_value) are gone from PyTensor 3.3",
    _L + "test_mixture.py::test_expand_indices_newaxis": "as_index_constant(None) no longer converts a newaxis in PyTensor 3.3",
    _L + "test_mixture.py::test_mixture_basics": "the installed PyMC derives the mixture the snapshot expects to refuse (valued component)",
    _L + "test_mixture.py::test_scalar_switch_mixture": "the installed IR does not name the switch a MeasurableSwitchMixture (an IR detail)",
    _L + "test_mixture.py::test_switch_mixture_invalid_bcast": "the installed IR does not name the switch a MeasurableSwitchMixture (an IR detail)",
    _L + "test_order.py::test_measure_type_info_order": "get_measure_type_info is gone from the installed PyMC",
    _L + "test_order.py::test_non_rv_fails[max]": "the installed PyMC derives the max of exp(beta) the snapshot expects to refuse",
    _L + "test_tensor.py::TestMeasurableSplit::test_not_all_splits_used_core_dim": "partial Split: the snapshot's NotImplementedError('Partial Split') is newer (installed: ValueError)",
    _L + "test_tensor.py::TestMeasurableSplit::test_values_reached_through_measurable_chains": "Split valued through chains is newer than the installed PyMC (ValueError: number of values)",
    _L + "test_tensor.py::test_nested_join_conditions_split_components": "Split valued through a join is newer than the installed PyMC (ValueError: number of values)",
    _L + "test_tensor.py::test_nested_split_queries_with_conditioning": "nested Split queries are newer than the installed PyMC (ValueError: number of values)",
    _L + "test_tensor.py::test_stack_split_component": "a Split component stacked with a dependent is newer than the installed PyMC (ValueError: number of values)",
    _L + "test_tensor.py::test_symbolic_split_join": "a symbolic Split joined with a dependent is newer than the installed PyMC (ValueError: number of values)",
    _L + "test_transform_value.py::test_default_value_transform_logprob[pt_dist16-dist_params16-<lambda>-size16]": "PyTensor 3.3 refuses size (3, 2) against batched Dirichlet parameters (size length check)",
    _L + "test_transform_value.py::test_mixture_transform": "filterwarnings('error') meets PyTensor 3.3's DeprecationWarning on RandomVariable calls that hide the rng",
    _L + "test_transforms.py::test_meta_exp_transform_rv": "the snapshot never defines get_measurable_meta_info / meta_info_helper (NameError on any PyMC)",
    _L + "test_transforms.py::TestPowerRVTransform::test_reciprocal_rv_transform": "the installed PyMC derives the icdf of a reciprocal the snapshot expects to refuse",
    _L + "test_transforms.py::TestPowerRVTransform::test_reciprocal_real_rv_transform": "the installed PyMC derives the icdf of a reciprocal the snapshot expects to refuse",
    _L + "test_transforms.py::test_measurable_power_exponent_with_constant_base": "the installed PyMC no longer raises ParameterValueError('base >= 0') at graph construction",
    _L + "test_transforms.py::test_negated_discrete_rv_transform": "the installed PyMC derives the logcdf/icdf the snapshot expects to refuse",
    _L + "test_transforms.py::test_shifted_discrete_rv_transform": "the installed PyMC derives the logcdf/icdf the snapshot expects to refuse",
    _L + "test_utils.py::TestReplaceRVsByValues::test_unvalued_rv_model": "the rebuilt normal's Op no longer compares equal to pt.random.normal (PyTensor 3.3 Op parameters)",
    _L + "test_utils.py::TestReplaceRVsByValues::test_interdependent_transformed_rvs": "the installed PyMC chains the Interval transform (value vars named *_chain__, not *_interval__)",
}

#: tests that pass stock only because they pin PyMC's refusal of a graph that relations.pymc derives, each
#: with how the derived density was checked (against scipy at draws, outside the suite): a difference
#: in outcome that is not a wrong density
LIFTED: dict[str, str] = {
    _L + "test_censoring.py::test_maximum_of_two_rvs_not_claimed_as_censoring": "maximum of two draws of normal(0, 1), derived as the max of one draw of size 2 (iid draws: relations.pymc.iid): equal to log(2) + log Phi(v) + log phi(v) at -1, 0.3, 2",
    _L + "test_cumsum.py::test_destructive_cumsum_fails": "cumsum over all axes of a (2, 2, 2) normal, derived as Cumsum{axis=0}(JoinDims(normal)): equal to scipy's logpdf of the differences",
    _L + "test_mixture.py::test_hetero_mixture_categorical[X_args14-Y_args14-Z_args14-p_val14-comp_size14-idx_size14-extra_indices14-0-False]": "stack([X, Y, Z])[I, arange(5)], derived as switch(I == 0, X, switch(I == 1, Y, Z)): equal to scipy's component densities at 5 draws",
}

#: tests that fail on the installed PyMC stock because it cannot derive a logp the snapshot's PyMC derives:
#: kept in both runs (relations.pymc may derive them from an equal form), each with what stock raises
STOCK_GAPS: dict[str, str] = {
    _L + "test_rewriting.py::test_joint_logprob_incsubtensor": "RuntimeError: could not be derived (set_subtensor of a random variable)",
    _L + "test_switch.py::test_switch_non_overlapping_logp_matches_change_of_variables": "NotImplementedError for Switch in 12 of 16 cases (0 < x and x < 0 spellings, the scaled branch true)",
    _L + "test_tensor.py::test_cumsum_between_support_axis_dimshuffles": "RuntimeError: could not be derived (cumsum between dimshuffles of a Dirichlet)",
    _L + "test_tensor.py::test_transposed_multivariate_transform": "RuntimeError: could not be derived (exp of a transposed MvNormal)",
    _L + "test_transform_value.py::test_default_value_transform_logprob[pt_dist8-dist_params8-<lambda>-size8]": "NotImplementedError: no logprob for PyTensor's halfcauchy_rv",
}

#: PyMC's pytest settings that matter (its pyproject.toml: xfail_strict, testpaths)
PYTEST_INI = """[pytest]
xfail_strict = true
"""

#: the plugin of the installed run: relations from this checkout, install() at session start, per-test counts
PLUGIN = '''
import json, sys
# this checkout's relations (and graph_bridge, logic_core) ahead of an installed copy while they import,
# then behind the snapshot's own ``tests`` package (this checkout has a ``tests`` directory too)
sys.path.insert(0, {root!r})
import relations.pymc as rpm
from relations.pymc import densities as _d
sys.path.remove({root!r})
sys.path.append({root!r})

_counts = {{}}
_current = [None]


def _count(kind):
    if _current[0] is not None:
        mine = _counts.setdefault(_current[0], {{}})
        mine[kind] = mine.get(kind, 0) + 1


def _wrap(name, kind, when=None, done=None):
    """Count the calls of densities.<name> (those whose result ``when`` accepts), and with ``done`` how
    many returned (``<done>_derived``) and raised (``<done>_raised``)."""
    original = getattr(_d, name)

    def counted(*args, **kwargs):
        try:
            out = original(*args, **kwargs)
        except Exception:
            _count(kind)
            if done:
                _count(done + "_raised")
            raise
        if when is None or when(out):
            _count(kind)
            if done:
                _count(done + "_derived")
        return out

    setattr(_d, name, counted)  # the module's functions call each other by their global names


_wrap("broadcast_random", "refused_broadcast", when=lambda out: out is not None)
_wrap("_derived_logp", "past_stock", done="past_stock")
_wrap("_censored_outermost", "censoring_checked", done="censoring_checked")
_wrap("cross_check", "cross_checked", done="cross_checked")
_wrap("_rewritten_rv_values", "conditional_past_stock", done="conditional_past_stock")


def pytest_sessionstart(session):
    rpm.install()


def pytest_runtest_setup(item):
    _current[0] = item.nodeid


def pytest_sessionfinish(session, exitstatus):
    with open({report!r}, "w") as f:
        json.dump({{"relations": rpm.__file__, "installed": rpm.installed(), "counts": _counts}}, f)
'''

#: printed by the venv's python: the installed PyMC and PyTensor, and where relations comes from
PROBE = """
import json, sys
sys.path.insert(0, {root!r})
import pymc, pytensor
try:
    rev = pymc._version.get_versions().get("full-revisionid")
except Exception:
    rev = None
import relations.pymc
print(json.dumps({{"pymc": pymc.__version__, "revision": rev, "pytensor": pytensor.__version__,
                  "relations": relations.pymc.__file__}}))
"""

KINDS = ("passed", "failed", "error", "skipped", "xfailed")


def check_files(dest: Path) -> tuple[list[str], list[str]]:
    """The MANIFEST files missing from ``dest`` and those whose content differs from the copy measured."""
    missing, changed = [], []
    for name, digest in MANIFEST.items():
        path = dest / name
        if not path.exists():
            missing.append(name)
        elif hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            changed.append(name)
    return missing, changed


def run(python: str, dest: Path, files: list[str], name: str, installed: bool, extra: list[str]) -> tuple[Path, float]:
    """One pytest run in ``dest``; the JUnit report's path and the seconds it took."""
    env = dict(os.environ)
    junit = dest / f"junit_{name}.xml"
    cmd = [python, "-m", "pytest", *files, "-q", "-p", "no:cacheprovider", f"--junitxml={junit}", "-o", "junit_family=xunit1"]
    for test in EXCLUDED:
        cmd += ["--deselect", test]
    if installed:
        plugin = dest / "relations_peer_pymc_plugin.py"
        plugin.write_text(PLUGIN.format(root=str(ROOT), report=str(dest / "relations_pymc_paths.json")))
        cmd[3:3] = ["-p", "relations_peer_pymc_plugin"]
        env["PYTHONPATH"] = os.pathsep.join([str(dest), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return junit, run_logged([*cmd, *extra], dest, env, name, junit)


def describe_paths(counts: dict[str, int]) -> str:
    """What relations.pymc did during one test, from the plugin's counts."""
    if not counts:
        return "relations: stock path only"
    parts = [f"{k}={v}" for k, v in sorted(counts.items())]
    return "relations: " + ", ".join(parts)


def table(stock: dict, installed: dict, paths: dict[str, dict[str, int]]) -> list[str]:
    files = sorted({t.split("::")[0] for t in stock} | {t.split("::")[0] for t in installed})
    lines = [f"{'file':<40}{'run':<10}" + "".join(f"{k:>9}" for k in KINDS) + f"{'total':>7}"]
    for f in [*files, "all"] if len(files) > 1 else files:
        for name, res in (("stock", stock), ("installed", installed)):
            mine = [o for t, (o, _) in res.items() if f == "all" or t.split("::")[0] == f]
            counts = [mine.count(k) for k in KINDS]
            label = f.split("tests/logprob/", 1)[-1]
            lines.append(f"{label:<40}{name:<10}" + "".join(f"{c:>9}" for c in counts) + f"{len(mine):>7}")
    differing = sorted(t for t in set(stock) | set(installed) if stock.get(t, ("absent", ""))[0] != installed.get(t, ("absent", ""))[0])
    lines.append("")
    lines.append(f"{len(differing)} tests differ")
    for t in differing:
        s, g = stock.get(t, ("absent", "")), installed.get(t, ("absent", ""))
        gap = next((why for prefix, why in STOCK_GAPS.items() if t.startswith(prefix)), None)
        note = f"\n      stock gap: {gap}" if gap and s[0] in ("failed", "error") else ""
        if t in LIFTED:
            note += f"\n      lifted refusal (LIFTED): {LIFTED[t]}"
        lines.append(f"  {t}\n      stock: {s[0]:<8} installed: {g[0]:<8} {describe_paths(paths.get(t, {}))}\n      {g[1] or s[1]}{note}")
    return lines


def path_summary(paths: dict[str, dict[str, int]], total: int) -> list[str]:
    """In how many tests (and calls) the installed run left the stock path, by kind."""
    kinds = {
        "refused_broadcast": "logp refused before stock (a broadcast random variable)",
        "past_stock": "logp past a stock failure (measurable forms tried)",
        "past_stock_derived": "  ... and a form derived",
        "past_stock_raised": "  ... and it raised (NotDerivable or another error)",
        "censoring_checked": "a censoring-outermost form sought (transformed censoring)",
        "censoring_checked_raised": "  ... none derived (TransformedCensoring)",
        "cross_checked": "two densities cross-checked at draws",
        "cross_checked_raised": "  ... and they differed (DensityMismatch)",
        "conditional_past_stock": "conditional_logp past a stock failure",
        "conditional_past_stock_derived": "  ... and forms derived",
        "conditional_past_stock_raised": "  ... and it raised",
    }
    lines = [f"\nthe installed run left the stock path in {len(paths)} of {total} tests:"]
    for kind, text in kinds.items():
        tests = [t for t, c in paths.items() if c.get(kind)]
        calls = sum(c.get(kind, 0) for c in paths.values())
        lines.append(f"  {text:<60}{len(tests):>5} tests {calls:>6} calls")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tests", type=Path, required=True, help="the directory holding tests/logprob/... (see the docstring)")
    ap.add_argument("--files", nargs="+", help="test files (paths inside DIR; default: every test file of MANIFEST)")
    ap.add_argument("--python", default=sys.executable, help="the interpreter whose PyMC is tested")
    ap.add_argument("-k", dest="select", help="pytest -k expression (both runs)")
    ap.add_argument("--only", choices=("stock", "installed"), help="one run only (no comparison)")
    args = ap.parse_args(argv)
    dest = args.tests.resolve()
    if not (dest / "tests" / "logprob").is_dir():
        print(f"{dest} holds no tests/logprob (see the docstring for how to write it)", file=sys.stderr)
        return 2
    missing, changed = check_files(dest)
    if missing:
        print(f"{dest} lacks {', '.join(missing)}", file=sys.stderr)
        return 2
    probe = json.loads(subprocess.run([args.python, "-c", PROBE.format(root=str(ROOT))], capture_output=True, text=True, check=True, cwd=ROOT).stdout.splitlines()[-1])
    (dest / "pytest.ini").write_text(PYTEST_INI)
    files = list(args.files or [f for f in MANIFEST if Path(f).name.startswith("test_") and f.startswith("tests/logprob/")])
    extra = ["-k", args.select] if args.select else []
    rev = (probe["revision"] or "?")[:10]
    print(f"PyMC {probe['pymc']} ({rev}), PyTensor {probe['pytensor']} ({args.python}); relations.pymc: {probe['relations']}")
    print(f"tests: {len(files)} files of {dest}{'  -k ' + args.select if args.select else ''}; {len(EXCLUDED)} tests deselected (EXCLUDED)")
    if changed:
        print(f"these files differ from the copies measured (MANIFEST): {', '.join(changed)}")
    results: dict[str, dict] = {}
    seconds: dict[str, float] = {}
    for name in ("stock", "installed"):
        if args.only and args.only != name:
            continue
        junit, seconds[name] = run(args.python, dest, files, name, name == "installed", extra)
        results[name] = outcomes(junit, width=110)
    print(", ".join(f"{name} run {secs:.0f} s" for name, secs in seconds.items()))
    if len(results) < 2:
        (name, res), = results.items()
        for k in KINDS:
            print(f"{k:>9}: {sum(1 for o, _ in res.values() if o == k)}")
        for t, (o, m) in sorted(res.items()):
            if o in ("failed", "error"):
                print(f"  {t}: {o}  {m}")
        return 0
    report = json.loads((dest / "relations_pymc_paths.json").read_text())
    if not report["installed"]:
        print("relations.pymc.install() was not in effect in the installed run", file=sys.stderr)
        return 2
    print(f"installed run: relations.pymc from {report['relations']}")
    print("\n".join(table(results["stock"], results["installed"], report["counts"])))
    unexpected = [t for t, (o, _) in sorted(results["stock"].items()) if o in ("failed", "error") and not any(t.startswith(p) for p in STOCK_GAPS)]
    gaps = [t for t, (o, _) in sorted(results["stock"].items()) if o in ("failed", "error") and any(t.startswith(p) for p in STOCK_GAPS)]
    print(f"\nstock failures: {len(gaps)} stock gaps (STOCK_GAPS, kept), {len(unexpected)} others (neither EXCLUDED nor a gap)")
    for t in gaps:
        print(f"  gap  {t}: stock {results['stock'][t][0]}, installed {results['installed'].get(t, ('absent', ''))[0]}")
    for t in unexpected:
        print(f"  new  {t}: {results['stock'][t][1]}")
    print("\n".join(path_summary(report["counts"], len(results["installed"]))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
