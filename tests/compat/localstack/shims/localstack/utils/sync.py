import time


def poll_condition(condition, timeout: float | None = None, interval: float = 0.5) -> bool:
    """Call condition until it returns true (-> True) or timeout seconds pass (-> False)."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while not condition():
        if deadline is not None and time.monotonic() >= deadline:
            return False
        time.sleep(interval)
    return True


def retry(function, retries: int = 3, sleep: float = 1.0, sleep_before: float = 0, **kwargs):
    """Call function(**kwargs) until it does not raise, at most retries + 1 times."""
    if sleep_before:
        time.sleep(sleep_before)
    for attempt in range(retries + 1):
        try:
            return function(**kwargs)
        except Exception:
            if attempt == retries:
                raise
            time.sleep(sleep)
