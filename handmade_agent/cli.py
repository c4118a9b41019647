"""The ``handmade-agent`` command: demo, ask, serve, fetch-model, cache, eval.

    handmade-agent fetch-model          # find or assemble the local model, verify it, show progress (--model 1.5b)
    handmade-agent demo                 # answer a built-in question with the local model
    handmade-agent ask "北京明天天气如何？"  # any question
    handmade-agent serve --port 8080    # the local model as an OpenAI-compatible server (--model, --api-key, --host)
    handmade-agent cache info|clear     # the prefix cache of saved prompt states; info also lists the model files
    handmade-agent eval --configs react+c,native --limit 10   # the evaluation suite (see evaluation/)
    handmade-agent eval --split test --configs react+c          # the held-out split: to report, never to tune
    handmade-agent eval --split two_domain --configs react+c,team+react+c   # one agent against a team (chapter 11)

``--backend openai`` (or ``HANDMADE_AGENT_BASE_URL`` being set) uses ``OpenAIChat``
with the ``HANDMADE_AGENT_*`` settings instead of the in-process model. ``--model`` names a local model of
the registry ("0.5b", "1.5b"); unset, ``HANDMADE_AGENT_LOCAL_MODEL`` or the default decides.
Errors of this package print as one readable line and exit with status 2.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any, Callable

from .errors import HandmadeAgentError, LLMError

DEMO_QUESTION = "Today is 2024-05-20. What weekday is it 150 days later?"
MAX_QUESTION = 10_000  # characters: a longer "question" is a pasted file, and would not fit the 4,096-token context


def check_question(question: str) -> str:
    """The question, or a ConfigError when it is empty or too long to be one."""
    from .errors import ConfigError
    if not question.strip():
        raise ConfigError("The question is empty. Ask something, e.g. handmade-agent ask \"What is 2+3?\"")
    if len(question) > MAX_QUESTION:
        raise ConfigError(f"The question has {len(question):,} characters; at most {MAX_QUESTION:,} are accepted. "
                          "Put long material in a file and use retrieval (notebook 06) instead.")
    return question


def progress_bar(stage: str, done: int, total: int, width: int = 30) -> None:
    """Print a one-line progress bar to stderr (rewritten in place)."""
    frac = done / total if total else 1.0
    if done < total and int(frac * 100) == getattr(progress_bar, "_last", -1):
        return  # redraw once per percent, so logs of a non-terminal run stay short
    progress_bar._last = -1 if done >= total else int(frac * 100)  # type: ignore[attr-defined]
    bar = "#" * int(frac * width)
    sys.stderr.write(f"\r{stage:>6} [{bar:<{width}}] {frac:6.1%} {done / 1e6:7.1f}/{total / 1e6:.1f} MB")
    if done >= total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def model_names() -> str:
    from .local import MODELS
    return ", ".join(f"{s.name} ({'/'.join(s.aliases)})" for s in MODELS.values())


def check_model_name(name: str | None) -> str | None:
    """``name`` if it names a registry model (or is None); a GGUF path gets told about --gguf."""
    from .errors import ConfigError
    from .local import model_spec
    if name and name.lower().endswith(".gguf"):  # what --model meant before it named registry models
        raise ConfigError(f"--model takes a model name ({model_names()}); pass a GGUF file with --gguf {name}.")
    model_spec(name)  # an unknown name fails here, before anything loads
    return name


def model_cache_lines() -> str:
    """One line per registry model: its cached file, size and whether its verified stamp holds, or how to fetch it."""
    from .local import DEFAULT_MODEL, MODELS, cached_model
    lines = []
    for name, spec in MODELS.items():
        path, size, stamped = cached_model(spec)
        label, fetch = f"{name}{' (default)' if name == DEFAULT_MODEL else ''}", f"fetch-model --model {spec.aliases[0]}"
        if size is None:
            lines.append(f"  {label}: not in the cache (handmade-agent {fetch})")
        else:
            state = ("verified" if stamped else f"not verified yet (handmade-agent {fetch} --verify)"
                     if size == spec.size else f"wrong size, expected {spec.size:,} bytes: delete it and fetch again")
            lines.append(f"  {label}: {path} ({size:,} bytes, {state})")
    return "models:\n" + "\n".join(lines)


def make_llm(backend: str):
    """The model to use: 'local' (in-process), 'openai' (any compatible server), or 'auto'."""
    from .llm import ENV_BASE_URL, OpenAIChat
    if backend == "openai" or (backend == "auto" and os.environ.get(ENV_BASE_URL)):
        return OpenAIChat()
    from .local import LocalLLM
    return LocalLLM()


def answer(question: str, backend: str = "auto", out=None) -> str:
    """Answer ``question``: with the agent and the toolbox when they are installed, else one completion."""
    out = out or sys.stdout
    llm = make_llm(backend)
    print(f"model: {llm.model}\nquestion: {question}", file=out)
    try:
        from .agent import Agent
        from .toolbox import default_registry
    except ImportError:  # the agent chapters are optional for this command
        t0 = time.perf_counter()
        c = llm.complete([{"role": "user", "content": question}], max_tokens=256)
        print(f"answer: {c.text.strip()}\n({c.usage.completion_tokens} tokens in {time.perf_counter() - t0:.1f} s)",
              file=out)
        return c.text
    observers = []
    try:
        from .observers import ConsolePrinter
        observers.append(ConsolePrinter(file=out))
    except ImportError:
        pass
    result = Agent(llm, default_registry(), observers=observers).run(question)
    if result.stop_reason == "model_error":  # the run could not reach the model: that is the user's problem to fix
        raise LLMError(result.steps[-1].error if result.steps else "the model failed")
    print(f"answer: {result.answer}\n(stop: {result.stop_reason}, {len(result.steps)} steps, "
          f"{result.usage.total_tokens} tokens, {result.duration:.1f} s)", file=out)
    return result.answer or ""


def run_eval(args: argparse.Namespace) -> None:
    """The evaluation suite: progress lines as tasks finish, then the table."""
    from .evaluation import check_out_path, evaluate, format_table, load_tasks, parse_configs, summarize
    configs = parse_configs(args.configs)  # checked before the model loads: a typo costs no minutes
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()] if args.kinds else None
    tasks = load_tasks(kinds=kinds, limit=args.limit, every=args.every, split=args.split)
    check_out_path(args.out)  # so is the results file: a bad --out must not end a run in a traceback
    llm = make_llm(args.backend)
    print(f"model: {llm.model}; {args.split} split, {len(tasks)} tasks x {len(configs)} configurations; "
          f"outcomes appended to {args.out}", flush=True)
    outcomes = evaluate(llm, tasks, configs, out=args.out, progress=lambda line: print(line, flush=True))
    print("\n" + format_table(summarize(outcomes)))


def request_spans(otel: Any) -> Callable[[dict], None]:
    """What ``serve --trace-to`` tells ``otel`` (an ``OTelObserver``) of each request: a ``chat`` span, redacted like
    an agent's. Its exporter sends in the background: a trace UI that is down never holds a request."""
    import uuid

    from .agent.events import LLMCallFinished, LLMCallStarted, emit

    def on_request(r: dict) -> None:
        run_id, otel.model = f"request-{uuid.uuid4().hex[:8]}", r["model"]
        emit([otel], LLMCallStarted(run_id=run_id, ts=r["started"], messages=r["messages"], purpose="served"))
        emit([otel], LLMCallFinished(run_id=run_id, ts=r["started"] + r["seconds"], text=r["text"], usage=r["usage"],
                                     latency=r["seconds"], purpose="served"))
    return on_request


def run_trace_ui(port: int, grpc_port: int, folder: str | None) -> None:
    """Phoenix in the foreground until Ctrl-C: its address, and the two lines that send a run there."""
    from .local import cache_dir
    from .observers import TraceUI
    ui = TraceUI(folder or cache_dir() / "traces", port=port, grpc_port=grpc_port).start()
    print(f"Phoenix: {ui.url} (storage: {ui.folder})\nsend runs there: Agent(..., observers=[OTelObserver("
          f"endpoint={ui.endpoint!r})])\nCtrl-C stops it.", flush=True)
    try:
        ui.process.wait()
    except KeyboardInterrupt:
        pass
    finally:
        ui.stop()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="handmade-agent", description="A hand-made AI agent that runs offline.")
    sub = p.add_subparsers(dest="command", required=True)
    for name, helptext in (("demo", "answer a built-in question"), ("ask", "answer your question")):
        sp = sub.add_parser(name, help=helptext)
        if name == "ask":
            sp.add_argument("question")
        sp.add_argument("--backend", choices=["auto", "local", "openai"], default="auto")
    sp = sub.add_parser("serve", help="serve the local model over an OpenAI-compatible HTTP API")
    sp.add_argument("--host", default="127.0.0.1")
    sp.add_argument("--port", type=int, default=8080)
    sp.add_argument("--n-ctx", type=int, default=4096)
    sp.add_argument("--model", default=None, help=f"which local model: {model_names()} "
                                                  "(default: $HANDMADE_AGENT_LOCAL_MODEL, else the 1.5B)")
    sp.add_argument("--gguf", default=None, help="a GGUF file to load instead of that model's own file")
    sp.add_argument("--queue-limit", type=int, default=16, help="requests waiting at most; more get 503")
    sp.add_argument("--api-key", default=None,
                    help="clients must send it as Authorization: Bearer. Prefer $HANDMADE_AGENT_SERVE_API_KEY: "
                         "a command line is visible to every user of the machine (ps)")
    sp.add_argument("--trace-to", default=None, metavar="URL",
                    help="send a span per chat request over OTLP/HTTP, e.g. http://127.0.0.1:6006/v1/traces "
                         "(handmade-agent trace-ui); off by default")
    sp = sub.add_parser("fetch-model", help="find or assemble the local model and verify its sha256")
    sp.add_argument("--verify", action="store_true", help="hash the file even if its size and stamp match")
    sp.add_argument("--model", default=None, help=f"which local model: {model_names()} "
                                                  "(default: $HANDMADE_AGENT_LOCAL_MODEL, else the 1.5B)")
    sp = sub.add_parser("cache", help="show or clear the prefix cache (saved KV states of prompt prefixes); "
                                      "info also shows which models are in the cache")
    sp.add_argument("action", choices=["info", "clear"])
    sp = sub.add_parser("trace-ui", help="start Arize Phoenix on 127.0.0.1, where OTelObserver sends runs "
                                         "(needs: pip install 'handmade-agent[trace-ui]')")
    sp.add_argument("--port", type=int, default=6006, help="its web UI and OTLP over HTTP")
    sp.add_argument("--grpc-port", type=int, default=4317, help="its OTLP over gRPC")
    sp.add_argument("--dir", default=None, help="where Phoenix keeps its SQLite storage "
                                                "(default: traces/ under the package's cache folder)")
    sp = sub.add_parser("eval", help="run the evaluation suite (data/eval_tasks.jsonl) and print a table")
    sp.add_argument("--configs", default="react+c,native+c,react,native",
                    help="react|native, +c (constrained), -examples/-recap/-guard/-reanswer/-translate/-errors/"
                         "-sides/-units (that part off)")
    # no argparse choices: load_tasks names the valid splits in the package's one-line error
    sp.add_argument("--split", default="suite", help="suite (default): the tasks the course is tuned on; "
                                                     "test: the held-out split, run only to report, never to tune; "
                                                     "two_domain: chapter 11's tasks (the manual and the calendar)")
    sp.add_argument("--kinds", default=None, help="task kinds, comma-separated (default: all)")
    sp.add_argument("--limit", type=int, default=None, help="at most N tasks, taken from each kind in turn")
    sp.add_argument("--every", type=int, default=None, help="every K-th task only")
    sp.add_argument("--out", default="eval_results.jsonl", help="JSONL file the outcomes are appended to")
    sp.add_argument("--backend", choices=["auto", "local", "openai"], default="auto")
    args = p.parse_args(argv)
    try:
        if args.command == "fetch-model":
            from .local import find_model, model_spec
            print(find_model(model_spec(check_model_name(args.model)), progress=progress_bar, verify=args.verify))
        elif args.command == "cache":
            from .local import PrefixCache
            cache = PrefixCache()
            if args.action == "clear":
                print(f"removed {cache.clear()} entries from {cache.directory}")
            else:
                i = cache.info()
                off = "" if i["enabled"] else " (off: HANDMADE_AGENT_PREFIX_CACHE=0)"
                print(f"{i['directory']}: {i['entries']} entries, "
                      f"{i['bytes'] / 2**20:.1f} of {i['max_bytes'] / 2**20:.0f} MiB{off}")
                print(model_cache_lines())
        elif args.command in ("demo", "ask"):
            answer(DEMO_QUESTION if args.command == "demo" else check_question(args.question), args.backend)
        elif args.command == "eval":
            run_eval(args)
        elif args.command == "trace-ui":
            run_trace_ui(args.port, args.grpc_port, args.dir)
        elif args.command == "serve":
            from .observers import OTelObserver
            from .serve import ENV_SERVE_KEY, check_api_key, run_server
            api_key = check_api_key(args.api_key or os.environ.get(ENV_SERVE_KEY) or None)
            if args.api_key:  # argv cannot be hidden once the process runs; the environment is the process's own
                print(f"warning: --api-key is visible to every user of this machine (ps, /proc) while the server "
                      f"runs; set {ENV_SERVE_KEY} in the environment instead and leave --api-key out.",
                      file=sys.stderr, flush=True)
            run_server(args.host, args.port, model=check_model_name(args.model), model_path=args.gguf,
                       n_ctx=args.n_ctx, queue_limit=args.queue_limit,
                       api_key=api_key, announce=lambda text: print(text, flush=True),
                       on_request=request_spans(OTelObserver(endpoint=args.trace_to, project="handmade-agent-serve"))
                       if args.trace_to else None)
    except HandmadeAgentError as e:
        from .redaction import redact_text
        print(f"error: {redact_text(str(e))}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
