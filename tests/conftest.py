"""Fixtures shared by several test modules (pytest finds them here; test modules never import each
other), and the suite's cost lanes.

## Cost lanes

``make test`` runs every test. ``make test-fast`` (``pytest --fast``) runs the tests in no cost lane:
the suite minus what needs a browser, many sandboxed scorings, several processes, a model server,
the real SmolLM2 or a study's files; it must stay a few minutes on two cores and still import every
library module (checked at its end: :func:`_check_fast_lane_imports`). The lanes (:data:`LANES`) are
pytest markers, registered here. A test is in a lane when

* it is marked with it: ``@pytest.mark.slow`` on the test, or ``pytestmark = pytest.mark.browser``
  for a whole file -- how a new test declares its cost;
* it uses a fixture that brings the cost (:data:`LANE_FIXTURES`: a fixture of that name, wherever it
  is defined);
* its file or its test is listed in :data:`LANE_TESTS` (the suite's existing tests, kept in one
  table so that their costs can be read and changed together).

``pytest -m "not slow"``, ``-m browser`` ... select by lane as usual; ``--fast`` is ``-m`` with every
lane excluded. docs/guides/testing.md says the same for contributors.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from samples import BAD, GOOD, MID

#: lane -> what puts a test in it (the marker's description)
LANES = {
    "browser": "starts headless Chromium (renders pages; the frontend env's scoring; the docs crawl)",
    "sandbox": "scores many answers in the sandboxed evaluator (a process per answer, time and memory limits)",
    "distributed": "launches several processes (accelerate launch: a training, a pipeline stage)",
    "served": "starts a server process (transformers serve, colbench serve) and runs episodes through it",
    "slow": "costs seconds for another reason: the real SmolLM2, a training, the colbench command started "
            "several times, a build or an install",
    "study": "recomputes a study's committed results (studies/)",
}

#: fixture name -> the lane of every test that uses it, directly or through another fixture (a fixture
#: of that name wherever it is defined: name a new fixture of that kind alike, or add it here)
LANE_FIXTURES: dict[str, str] = {
    "renderer": "browser",   # colbench_env.evaluation.render.Renderer: a pool of headless Chromium
    "shots": "browser",      # test_similarity: pages rendered by a Renderer
    "browser": "browser",    # test_view: a Chromium WebDriver
    "site": "slow",          # test_docs: mkdocs build --strict of the whole site
}

#: ``file`` (every test in it) or ``file::test`` (every parametrisation of that test function) ->
#: lanes: the suite's tests that cost more than about 2 s of CPU on one core (measured one file at a
#: time, one thread, CPU seconds of the test and the processes it waited for), by what costs.
LANE_TESTS: dict[str, tuple[str, ...]] = {
    # ---- whole files
    "test_distributed.py": ("distributed",),            # accelerate launch: DDP, FSDP and ZeRO-3, every trainer
    "test_rows_sharded.py": ("distributed",),           # accelerate launch, ZeRO-3, rows_per_forward
    "test_evaluator_redteam.py": ("sandbox",),          # escape attempts, each scored in the sandbox
    "test_evaluator_reference.py": ("sandbox",),        # the reference scorer against the sandbox, many answers
    "test_evaluator_truth_batch.py": ("sandbox",),      # ground truths of every task scored in batches
    "test_paper_dry_run.py": ("served",),               # beside its slow, distributed marks: transformers serve
    "test_study_frontend_control.py": ("study",),
    "test_study_matched_budget.py": ("study",),
    "test_render.py": ("browser",),                     # Chromium renders
    "test_study_frontend_grid.py": ("study",),
    "test_study_frontend_pages.py": ("study",),
    "test_study_full_budget.py": ("study",),
    "test_sweet_rl_stages.py": ("slow",),               # every test trains SWEET-RL's stages (~50 s)
    # ---- single tests (every parametrisation)
    "test_bench_table.py::test_table_backend_and_frontend": ("browser",),
    "test_budget.py::test_every_trainer_records_its_budget_counted_at_the_optimiser": ("slow",),
    "test_budget.py::test_optimizer_steps_overrides_the_passes": ("slow",),
    "test_budget.py::test_matched_preference_methods_take_equal_pairs_and_steps": ("slow",),
    "test_budget.py::test_pipeline_matched_budget_trains_every_method_for_the_same_steps": ("slow",),
    "test_budget.py::test_sweet_rl_policy_stage_from_given_scores_equals_its_own": ("slow",),
    "test_integration_verifiers.py::test_vf_eval_rewards_are_colbench_evaluate_scores": ("slow",),  # vf-eval runs
    "test_integration_verifiers.py::test_every_model_call_saw_colbench_agent_context": ("slow",),
    "test_integration_verifiers.py::test_nothing_sent_or_saved_holds_ground_truth_or_tests": ("slow",),
    "test_pipeline_ranks.py::test_two_processes_split_an_episode_stage_and_merge_it_in_order": ("distributed",),
    "test_serve.py::test_sync_client_episodes_score_as_colbench_evaluate": ("served",),  # the module's colbench serve
    "test_serve.py::test_async_clients_run_sessions_concurrently_up_to_the_cap": ("served",),
    "test_serve.py::test_session_cap_refuses_one_more": ("served",),
    "test_serve.py::test_bad_input_gets_one_line_errors_and_leaves_other_sessions_alone": ("served",),
    "test_serve.py::test_idle_sessions_are_destroyed_and_free_their_slots": ("served",),
    "test_serve.py::test_openenv_validator_schema_and_manifest": ("served",),
    "test_sweet_rl_ranks.py::test_two_processes_write_the_same_candidates_and_pairs_as_one": ("distributed",),
    "test_sweet_rl_served.py::test_a_server_that_dies_mid_stage_resumes_from_the_last_state_written": ("slow",),
    "test_sweet_rl_served.py::test_the_pipelines_sweet_rl_asks_the_policy_server_and_stops_resumably_when_it_is_down": ("slow",),
    "test_cli.py::test_run_semantics_reaches_the_evaluator_and_the_resume_identity": ("slow",),
    "test_cli.py::test_user_errors_one_line_exit_2": ("slow",),
    "test_cli.py::test_other_commands_share_the_error_style": ("slow",),
    "test_cli_loop.py::test_the_trainer_generates_as_long_as_the_collection_did": ("slow",),
    "test_cli_loop.py::test_the_bitsandbytes_kernel_warning_is_gone": ("slow",),
    "test_cli_loop.py::test_no_help_says_a_default_twice": ("slow",),
    "test_cli_loop.py::test_the_scripted_agent_on_the_frontend_is_a_lower_bound_from_the_command": ("browser",),
    "test_cli_loop.py::test_a_plugin_whose_code_changed_is_refused_on_resume_naming_it": ("slow",),
    "test_cli_loop.py::test_training_refuses_other_prompt_settings_than_the_trajectories": ("slow",),
    "test_cli_loop.py::test_model_names_lead_where_the_docstring_says": ("slow",),
    "test_cli_loop.py::test_a_model_found_nowhere_is_one_line_at_once_and_nothing_is_written": ("slow",),
    "test_cli_loop.py::test_trajectories_without_pairs_are_refused_saying_what_data_gives_them": ("slow",),
    "test_configs.py::test_a_checkpoint_resumes_with_overrides_merged_into_its_nested_config": ("slow",),
    "test_critic_analysis.py::test_training_info_beats_no_info_on_held_out_tasks": ("slow",),  # 3 critics trained
    "test_critic_analysis.py::test_main_json_and_out": ("slow",),
    "test_critic_analysis.py::test_main_on_a_trajectory_file": ("slow",),
    "test_critic_ranking.py::test_end_to_end_on_a_tiny_llama_and_rerun_resumes": ("slow",),
    "test_critic_truncation.py::test_ten_turn_trajectory_longer_than_max_length_keeps_the_info_on_every_turn": ("slow",),
    "test_grpo.py::test_grpo_update_raises_the_better_rollouts_of_a_group": ("slow",),
    "test_grpo.py::test_cli_train_grpo_and_resume": ("slow",),
    "test_llm_simulator.py::test_reply_batch_is_one_generate_call_on_hf": ("slow",),
    "test_load_dtype.py::test_float32_compute_dtype_loads_a_bf16_checkpoint_in_float32": ("slow",),
    "test_memory_plan.py::test_shape_counts_match_the_model_peft_and_bitsandbytes": ("slow",),
    "test_paper_settings.py::test_the_llama31_tokenizer_is_metas": ("slow",),
    "test_paper_settings.py::test_no_paper_method_cuts_the_longest_ten_turn_trajectory": ("slow",),
    "test_pipeline.py::test_pipeline_runs_every_stage_and_resumes": ("slow",),
    "test_pipeline.py::test_pipeline_reports_methods_without_training_data": ("slow",),
    "test_pipeline.py::test_pipeline_seeds_sampled_evaluation_and_intervals": ("slow",),
    "test_pipeline.py::test_an_invocation_with_some_methods_or_seeds_reports_the_whole_directory": ("slow",),
    "test_rollout_serving.py::test_ctrl_c_with_episodes_in_flight_then_resume": ("slow",),
    "test_served_policy.py::test_pipeline_stage_asks_the_server_by_run_dir_name_loads_the_adapter_and_stops_on_failures": ("slow",),
    "test_grpo.py::test_grpo_every_turn_of_a_winning_dialogue_gains": ("slow",),
    "test_generator_frontend.py::test_replies_never_contain_html_tags_or_class_names": ("slow",),
    "test_ppo_on_policy.py::test_first_minibatch_ratio_is_one_at_the_sampling_temperature": ("slow",),
    "test_ppo_on_policy.py::test_minibatches_are_reshuffled_every_epoch_and_reproducibly": ("slow",),
    "test_reference_choices.py::test_critic_pairs_best_successful_against_each_lower": ("slow",),
    "test_sampling_path.py::test_backend_draws_the_hand_samplers_tokens": ("slow",),
    "test_sampling_path.py::test_left_padded_batches_sample_from_the_unpadded_distribution": ("slow",),
    "test_scores.py::test_a_local_lm_human_is_named_by_the_model_it_loaded": ("slow",),
    "test_served_policy.py::test_colbench_run_through_transformers_serve_equals_the_local_policy": ("served",),
    "test_served_policy.py::test_pipeline_through_transformers_serve_equals_the_local_policy": ("served",),
    "test_served_policy.py::test_pipeline_with_seeds_loads_each_trained_adapter_and_asks_for_it_by_name": ("slow",),
    "test_sweet_rl_critic.py::test_training_info_decides_the_winner": ("slow",),
    "test_rows_per_forward.py::test_multi_turn_dpo_gradients_equal_one_forward": ("slow",),
    "test_rows_per_forward.py::test_preference_pairs_gradients_equal_one_forward": ("slow",),
    "test_rows_per_forward.py::test_critic_bradley_terry_gradients_equal_one_forward": ("slow",),
    "test_rows_per_forward.py::test_ppo_gradients_equal_one_forward": ("slow",),
    "test_rows_per_forward.py::test_per_row_logits_equal_full_logits": ("slow",),
    "test_token_exact.py::test_fingerprint_tells_tokenizers_and_templates_apart_and_survives_a_reload": ("slow",),
    "test_token_exact.py::test_rft_trains_the_recorded_ids_and_no_human_token": ("slow",),
    "test_token_exact.py::test_pipeline_prints_and_keeps_each_methods_token_counts_and_strict_tokens_refuses": ("slow",),
    "test_token_exact.py::test_recorded_logprobs_are_the_old_logprobs_of_the_ratio": ("slow",),
    "test_token_exact.py::test_sweet_rl_scores_and_pairs_the_ids_its_candidates_were_sampled_as": ("slow",),
    "test_token_exact.py::test_sweet_rl_served_candidates_carry_the_servers_ids": ("slow",),
    "test_token_exact.py::test_transformers_serve_records_counts_and_colbench_train_says_what_differs": ("served",),
    "test_trainers.py::test_sweet_rl_step_dpo_moves_critic_preferred_action_up": ("slow",),
    "test_trainers.py::test_sweet_rl_full_update_samples_candidates": ("slow",),
    "test_trainers.py::test_cli_trains_and_resumes": ("slow",),
    "test_training_memory.py::test_freed_activations_go_back_to_the_os": ("slow",),
    "test_training_settings.py::test_full_finetune_critic_keeps_its_reference": ("slow",),
    "test_truncated_actions.py::test_smollm2_episode_records_why_turns_ended_and_trains_exactly_its_greedy_tokens": ("slow",),
    "test_warm_start.py::test_build_trains_on_every_demonstration_and_refuses_an_old_out": ("slow",),
    "test_trainers.py::test_history_in_one_message_falls_back_to_one_sequence_per_turn": ("slow",),
}

ROOT = Path(__file__).resolve().parents[1]


def pytest_addoption(parser):
    parser.addoption("--fast", action="store_true",
                     help="only the tests in no cost lane (make test-fast), then check that they imported "
                          "every library module")


def pytest_configure(config):
    """Registers the lanes as markers. Under pytest-xdist (``make test`` runs ``-n 2``), each worker
    and every process it starts (the ``colbench`` commands, ``accelerate launch``, servers) computes on
    one thread: two workers already fill two cores, and two OpenMP threads per process on busy cores
    spin in each other's way. Set before torch is imported (a worker imports the test modules after
    this); a value already in the environment wins. A plain ``pytest`` run is left as it is."""
    for lane, what in LANES.items():
        config.addinivalue_line("markers", f"{lane}: {what} (a cost lane: left out of make test-fast)")
    if hasattr(config, "workerinput"):
        for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
            os.environ.setdefault(var, "1")
    config._lanes_imported = set()
    if config.getoption("--fast") and not hasattr(config, "workerinput"):
        _record_child_imports()


def lanes_of(item) -> set[str]:
    """The cost lanes of a collected test (see the module docstring)."""
    lanes = {m.name for m in item.iter_markers() if m.name in LANES}
    lanes |= {LANE_FIXTURES[f] for f in getattr(item, "fixturenames", ()) if f in LANE_FIXTURES}
    path = Path(str(item.path)).resolve().relative_to(ROOT / "tests").as_posix()
    function = getattr(item, "originalname", None) or item.name.split("[")[0]
    for key in (path, f"{path}::{function}"):
        lanes.update(LANE_TESTS.get(key, ()))
    return lanes


def file_lanes(path: Path) -> set[str]:
    """The lanes of every test of a test file, read without importing it: its :data:`LANE_TESTS`
    entry and the lane markers of its module-level ``pytestmark``."""
    import ast

    lanes = set(LANE_TESTS.get(path.resolve().relative_to(ROOT / "tests").as_posix(), ()))
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets):
            lanes |= {sub.attr for sub in ast.walk(node.value) if isinstance(sub, ast.Attribute)
                      and sub.attr in LANES and ast.unparse(sub.value) == "pytest.mark"}
    return lanes


def pytest_ignore_collect(collection_path, config):
    """With ``--fast``, a test file whose every test is in a lane (:func:`file_lanes`) is not even
    imported: the fast lane's collection stays short, and what the file imports does not count as
    imported by the fast lane (:func:`_check_fast_lane_imports`)."""
    if (config.getoption("--fast") and collection_path.suffix == ".py" and collection_path.name.startswith("test_")
            and file_lanes(collection_path)):
        return True
    return None


@pytest.hookimpl(tryfirst=True)  # before pytest's -m selection, which then sees the lanes' markers
def pytest_collection_modifyitems(config, items):
    """Puts each test in its lanes (markers), and with ``--fast`` leaves out every test in a lane."""
    fast, kept = config.getoption("--fast"), []
    for item in items:
        lanes = lanes_of(item)
        for lane in sorted(lanes):
            item.add_marker(getattr(pytest.mark, lane))
        if not (fast and lanes):
            kept.append(item)
    if fast and len(kept) < len(items):
        kept_ids = {id(i) for i in kept}
        config.hook.pytest_deselected(items=[i for i in items if id(i) not in kept_ids])
        items[:] = kept


# -------------------------------------------------------------- the fast lane imports every module
#: library modules no fast test needs to import, and why
NOT_IMPORTED = {
    "colbench_env.evaluation._sandbox_child": "the sandbox's child process, run as a script without site "
                                              "(python -S) by every backend scoring the fast lane does",
    "colbench.viewer.browser": "drives headless Chromium (the browser lane: test_view, test_docs)",
    "colbench.benchmarks.bench_render": "times Chromium renders (the browser lane)",
    "colbench.benchmarks.bench_generation": "times the real SmolLM2 (test_lm_hf's slow test runs it)",
    # these two came with main's serve and scale merges, with no test and no documented command that
    # runs them: each wants a fast test on a small input, and then its line here goes
    "colbench.benchmarks.bench_candidates": "no test runs it yet",
    "colbench.benchmarks.bench_serve": "no test runs it yet",
}


def library_modules() -> set[str]:
    """Every importable module of the installed packages (colbench, colbench_env and the folders
    installed as colbench.agents, colbench.wrappers, colbench.benchmarks), ``__main__`` modules and
    the task-authoring sources left out."""
    import tomllib

    folders = {"colbench": "colbench", "colbench_env": "colbench_env"}
    folders.update({folder: name for name, folder in tomllib.loads((ROOT / "pyproject.toml").read_text())
                    ["tool"]["setuptools"]["package-dir"].items()})
    out = set()
    for folder, name in folders.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if "__pycache__" in parts or "authoring" in parts or parts[-1] == "__main__":
                continue
            if parts[-1] == "__init__":
                parts.pop()
            out.add(".".join([name, *parts]))
    return out


def _record_child_imports() -> None:
    """(``--fast``, the controller, before any worker starts) every Python process started from here
    on records the library modules it imported (tests/lane_imports/sitecustomize.py), into a folder
    that :func:`_child_imports` reads."""
    import tempfile

    os.environ["COLBENCH_LANE_IMPORTS"] = tempfile.mkdtemp(prefix="colbench-lane-imports-")
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT / "tests" / "lane_imports"), *filter(None, [os.environ.get("PYTHONPATH")])])


def _child_imports() -> set[str]:
    """The library modules the processes started by the fast lane's tests imported."""
    import shutil

    folder = os.environ.get("COLBENCH_LANE_IMPORTS")
    if not folder or not os.path.isdir(folder):
        return set()
    out = {line for f in Path(folder).glob("*.txt") for line in f.read_text(encoding="utf-8").splitlines()}
    shutil.rmtree(folder, ignore_errors=True)
    return out


def _imported_library_modules() -> set[str]:
    return {m for m, mod in list(sys.modules.items()) if mod is not None and m.split(".")[0] in ("colbench", "colbench_env")}


def pytest_sessionfinish(session, exitstatus):
    config = session.config
    if hasattr(config, "workerinput"):  # an xdist worker: hand its imports to the controller
        config.workeroutput["imported_library_modules"] = sorted(_imported_library_modules())
        return
    if _whole_fast_lane(session) and exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        _check_fast_lane_imports(session, config._lanes_imported | _imported_library_modules() | _child_imports())


def _whole_fast_lane(session) -> bool:
    """Whether this run is the whole fast lane (``--fast`` over the test paths, nothing selected
    further and not stopped early): only then must its imports cover the library."""
    config = session.config
    opt = config.option
    return bool(config.getoption("--fast") and not opt.collectonly
                and config.args_source == pytest.Config.ArgsSource.TESTPATHS
                and not opt.keyword and not opt.markexpr and not getattr(opt, "deselect", None)
                and not getattr(opt, "lf", False) and not getattr(opt, "failedfirst", False)
                and not session.shouldstop and not opt.maxfail)


@pytest.hookimpl(optionalhook=True)  # a pytest-xdist hook: absent where xdist is not installed
def pytest_testnodedown(node, error):  # (the controller) a worker's imports
    node.config._lanes_imported.update(getattr(node, "workeroutput", {}).get("imported_library_modules", ()))


def _check_fast_lane_imports(session, imported: set[str]) -> None:
    """The fast lane must import every library module (:func:`library_modules` but
    :data:`NOT_IMPORTED`); a module none of its tests imports fails the run, named."""
    missing = sorted(library_modules() - imported - set(NOT_IMPORTED))
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if missing:
        if reporter is not None:
            reporter.write_line(f"make test-fast: no fast test imports {len(missing)} library module(s): "
                                + ", ".join(missing) + " -- add a fast test that uses each", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    elif reporter is not None:
        reporter.write_line(f"make test-fast: the fast lane imported all {len(library_modules() - set(NOT_IMPORTED))} "
                            "library modules")


# ------------------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="session")
def tok():
    """SmolLM2's tokenizer (converted locally; no hub access)."""
    import torch
    from tiny_models import smollm2_tokenizer

    torch.set_num_threads(1)
    return smollm2_tokenizer()


@pytest.fixture(scope="session")
def small_tok(tok):
    """:func:`tiny_models.small_vocab_tokenizer` with SmolLM2's chat template (under 1,000 ids): a
    tiny model over it costs a fraction of one over SmolLM2's 49,152 ids, for the critic tests, whose
    property does not hang on the vocabulary (``tiny_model_dir(..., tokenizer="small-smollm2-template")``
    saves a model over it)."""
    from tiny_models import small_vocab_tokenizer

    return small_vocab_tokenizer(tok.chat_template)


@pytest.fixture(scope="session")
def tiny_model_dir(tok, tmp_path_factory, request):
    """``tiny_model_dir(seed=0, hidden_size=32, tokenizer="smollm2")``: the path of a saved tiny random
    Llama (:func:`tiny_models.save_tiny_llama`) with SmolLM2's tokenizer, or with ``tokenizer="small"``
    :func:`tiny_models.small_tokenizer` (2k ids, ChatML: a model whose logits cost ~25x less, for
    tests whose property does not depend on SmolLM2's own tokenizer), or with
    ``tokenizer="small-smollm2-template"`` :func:`tiny_models.small_vocab_tokenizer` (under 1k ids,
    SmolLM2's chat template: the critic tests'), made once per session and
    settings: the one model directory the trainers, the pipeline and the launches load. Read-only:
    a test that changes a model copies it first."""
    from tiny_models import save_tiny_llama, small_tokenizer

    made: dict[tuple[int, int, str], str] = {}
    # each tokenizer built once a session, on first use (the critic tests' is the small_tok fixture's)
    builders = {"smollm2": lambda: tok, "small": small_tokenizer,
                "small-smollm2-template": lambda: request.getfixturevalue("small_tok")}
    built: dict[str, object] = {}

    def get(seed: int = 0, hidden_size: int = 32, tokenizer: str = "smollm2") -> str:
        key = (seed, hidden_size, tokenizer)
        if key not in made:
            if tokenizer not in built:
                built[tokenizer] = builders[tokenizer]()
            made[key] = save_tiny_llama(tmp_path_factory.mktemp(f"tiny-{seed}-{hidden_size}-{tokenizer}"),
                                        built[tokenizer], seed, hidden_size)
        return made[key]

    return get


@pytest.fixture(scope="session")
def model_dir(tiny_model_dir):
    """The trainer tests' tiny model: :func:`tiny_model_dir` at seed 0, hidden size 64."""
    return tiny_model_dir(0, 64)


@pytest.fixture
def scored_trajectories():
    """``[GOOD, BAD, MID]`` of :mod:`samples`: rewards 1.0, 0.0, 0.3 on the same toy task."""
    return [GOOD, BAD, MID]


def docs_blocks() -> dict[str, tuple[str, str]]:
    """Every block a test runs: ``name -> (file, code)`` for each ``<!-- docs-test: name -->`` in
    README.md and the guides (``docs/guides/*.md``), the code being the first fenced block after it."""
    import re

    root = ROOT
    out: dict[str, tuple[str, str]] = {}
    for md in [root / "README.md", *sorted((root / "docs" / "guides").glob("*.md"))]:
        text = md.read_text(encoding="utf-8")
        for m in re.finditer(r"<!-- docs-test: ([\w-]+) -->", text):
            assert m.group(1) not in out, f"two blocks named {m.group(1)!r}: {out[m.group(1)][0]} and {md}"
            body = text[m.end():].split("```", 1)[1].split("\n", 1)[1]
            out[m.group(1)] = (str(md.relative_to(root)), body[:re.search(r"^```[ \t]*$", body, re.M).start()])
    return out


@pytest.fixture(scope="session")
def docs_block():
    """``docs_block(name)``: the code of the fenced block after ``<!-- docs-test: name -->`` in
    README.md or a guide (the lines a user copies, which a test then runs)."""
    blocks = docs_blocks()

    def block(name: str) -> str:
        assert name in blocks, f"no <!-- docs-test: {name} --> in README.md or docs/guides/"
        return blocks[name][1]

    return block
