"""Running the parts of a big build on every core, each part in a forked process of its own.

Reading, redacting and tokenising chats is pure CPU, and a chat does not depend
on any other: a full build splits its chats into one part per core and each
process writes its own segments. Only what the parent needs to record comes
back (segment names, where each session went); no message text crosses a pipe.

A part that fails, or a process that dies (a kill, the fault tests), fails the
whole run: the others are stopped, and what they wrote is named by no manifest
(a later build removes it). A part dies with the process that started it.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import signal
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
#: A part's work: given its number and a way to report chats done, what it wrote.
Work = Callable[[int, Callable[[int], None]], T]

#: How often (in chats) a part tells the parent how far it is.
PROGRESS_EVERY = 64
#: How long the parent waits for news before checking that every part is still alive.
_POLL_SECONDS = 0.5
_PR_SET_PDEATHSIG = 1


class PartFailed(RuntimeError):
    """A part of a parallel build died without saying why (killed, out of memory)."""


def cores() -> int:
    """The cores this process may run on (affinity, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def can_fork() -> bool:
    """Forking is safe only from a process with one thread (a lock held by another thread would stay held)."""
    return threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods()


def release_free_memory() -> None:
    """Hand the memory the allocator holds free back to the system (glibc's ``malloc_trim``; elsewhere nothing).

    Called before the parts are forked, which would each count the parent's free pages as their own, and by a
    part as it goes: a build's peak memory is then what it holds, not the most it ever held.
    """
    try:
        import ctypes

        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError, TypeError):  # not glibc (Windows: no CDLL(None))
        pass


def run_parts(work: Work[T], parts: int, progress: Callable[[int], None] | None = None) -> list[T]:
    """``work(0..parts-1)``, each in its own process; their results in part order, or the first failure raised."""
    context = multiprocessing.get_context("fork")
    release_free_memory()
    news: Any = context.Queue()
    parent = os.getpid()
    processes = [
        context.Process(target=_part, args=(work, number, news, parent), daemon=True) for number in range(parts)
    ]
    results: dict[int, T] = {}
    try:
        for process in processes:
            process.start()
        while len(results) < parts:
            try:
                kind, number, payload = news.get(timeout=_POLL_SECONDS)
            except queue.Empty:
                _check_alive(processes, results)
                continue
            if kind == "progress":
                if progress is not None:
                    progress(payload)
            elif kind == "done":
                results[number] = payload
            else:
                raise payload
        return [results[number] for number in range(parts)]
    finally:
        for process in processes:
            if process.is_alive() and process.pid is not None and len(results) < parts:
                process.terminate()
            process.join()
        news.close()


def _check_alive(processes: list[Any], results: dict[int, Any]) -> None:
    for number, process in enumerate(processes):
        if number not in results and process.exitcode is not None:
            raise PartFailed(f"part {number} of the build stopped (exit code {process.exitcode})")


def _die_with(parent: int) -> None:
    """Have the kernel kill this part when the process that started it dies (Linux), so no part outlives a kill."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: a part still ends when its pipe breaks
        pass
    if os.getppid() != parent:  # it died before the line above
        os._exit(1)


def _part(work: Work[Any], number: int, news: Any, parent: int) -> None:
    _die_with(parent)
    done = 0

    def report(chats: int) -> None:
        nonlocal done
        done += chats
        if done >= PROGRESS_EVERY:
            news.put(("progress", number, done))
            done = 0

    try:
        result = work(number, report)
    except BaseException as exc:  # every failure goes back to the parent, which raises it
        news.put(("failed", number, _picklable(exc)))
        return
    if done:
        news.put(("progress", number, done))
    news.put(("done", number, result))


def _picklable(exc: BaseException) -> BaseException:
    import pickle

    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:
        return RuntimeError(f"{type(exc).__name__}: {exc}")
