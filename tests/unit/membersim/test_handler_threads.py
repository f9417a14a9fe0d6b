"""membersim's kept handler threads: reused while idle, bounded, ended by time and by close."""

import threading
import time

from membersim.handler_threads import HandlerThreads


def wait_until(condition, seconds: float = 5.0) -> bool:
    ends = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > ends:
            return False
        time.sleep(0.005)
    return True


def test_jobs_one_after_another_run_on_one_thread():
    threads = HandlerThreads(linger=5.0)
    ran: list[str] = []
    try:
        for _ in range(5):
            done = threading.Event()
            threads.run(lambda done=done: (ran.append(threading.current_thread().name), done.set()))
            assert done.wait(5)
            assert wait_until(lambda: threads.idle() == 1)
        assert threads.started == 1
        assert len(set(ran)) == 1 and ran[0].startswith("membersim-handler-")
    finally:
        threads.close()


def test_jobs_at_once_each_get_a_thread_and_all_are_kept():
    threads = HandlerThreads(linger=5.0)
    release = threading.Event()
    running = threading.Semaphore(0)

    def job() -> None:
        running.release()
        release.wait(5)

    try:
        for _ in range(6):
            threads.run(job)
        for _ in range(6):
            assert running.acquire(timeout=5)
        assert threads.started == 6 and threads.idle() == 0
        release.set()
        assert wait_until(lambda: threads.idle() == 6)
    finally:
        threads.close()


def test_no_more_than_keep_wait_idle():
    threads = HandlerThreads(keep=2, linger=5.0)
    release = threading.Event()
    try:
        for _ in range(5):
            threads.run(lambda: release.wait(5))
        release.set()
        assert wait_until(lambda: threads.idle() == 2)
        time.sleep(0.1)
        assert threads.idle() == 2
    finally:
        threads.close()


def test_an_idle_thread_ends_after_linger_and_the_next_job_starts_another():
    threads = HandlerThreads(linger=0.1)
    names: list[str] = []
    try:
        threads.run(lambda: names.append(threading.current_thread().name))
        assert wait_until(lambda: threads.idle() == 1)
        assert wait_until(lambda: threads.idle() == 0)
        assert wait_until(lambda: not any(t.name == names[0] for t in threading.enumerate()))
        threads.run(lambda: names.append(threading.current_thread().name))
        assert wait_until(lambda: len(names) == 2)
        assert threads.started == 2 and names[0] != names[1]
    finally:
        threads.close()


def test_close_ends_the_idle_threads_before_it_returns():
    threads = HandlerThreads(linger=30.0, name="closing-test")
    release = threading.Event()
    for _ in range(3):
        threads.run(lambda: release.wait(5))
    release.set()
    assert wait_until(lambda: threads.idle() == 3)
    threads.close()
    assert threads.idle() == 0
    assert not [t for t in threading.enumerate() if t.name.startswith("closing-test-")]
