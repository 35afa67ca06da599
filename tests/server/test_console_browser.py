#!/usr/bin/env python3
"""lqsd's web console (/console) in a real browser: Debian's headless Chromium,
driven by Debian's python3-selenium through chromium-driver.

lqsd runs with --auth-file, so the test logs in through the form first. boto3
(signed with the same key) makes a queue, its dead-letter queue and messages;
the console must then show the queues and their counts, peek a message with its
body and attributes, find it by id, chart the queue's history, redrive the
dead-letter queue (StartMessageMoveTask) while the counts move and the task's
progress shows, purge after a confirmation, and send a test message. A
screenshot of the console goes to the path given as the first argument.

  /usr/bin/python3 test_console_browser.py SCREENSHOT.png

Exit codes: 0 passed, 1 failed, 77 skipped (selenium, chromium, chromedriver,
boto3 or lqsd missing; under CI those fail: tests/missing_client.py).

It also checks lqsd's startup warning: listening beyond loopback without --auth-file
(and with the console on), lqsd names the console in a warning; and that --console off
leaves /console unserved.
"""

import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lqsd_harness import (Config, Lqsd, boto3, http_request, lqsd_binary,  # noqa: E402
                          missing_client)

KEY, SECRET = "AKIDCONSOLE", "console-secret-123"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
WAIT = 20  # seconds, for anything the page does after a click or a refresh


def missing():
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed for %s (Debian: python3-selenium)" % sys.executable
    if not os.path.exists(CHROMIUM):
        return "chromium is not installed (Debian: chromium)"
    if not os.path.exists(CHROMEDRIVER):
        return "chromedriver is not installed (Debian: chromium-driver)"
    if boto3 is None:
        return "boto3 is not installed for %s" % sys.executable
    try:
        lqsd_binary()
    except RuntimeError as e:
        return str(e)
    return None


def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,1500", "--no-first-run", "--disable-extensions"):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


def check_off_loopback_warning():
    """lqsd warns, naming the console, when it listens beyond loopback without --auth-file."""
    keys = tempfile.NamedTemporaryFile("w", suffix=".keys", delete=False)
    keys.write("%s %s\n" % (KEY, SECRET))
    keys.close()
    try:
        for args, warned in (((), True), (("--auth-file", keys.name), False),
                             (("--console", "off"), False)):
            for listen, off_loopback in (("0.0.0.0:0", True), ("127.0.0.1:0", False)):
                with tempfile.TemporaryFile() as err:
                    server = Lqsd(*args, listen=listen, stderr=err)
                    status, _, body = http_request("127.0.0.1", server.port, "GET", "/console")
                    assert server.stop() == 0
                    err.seek(0)
                    text = err.read().decode()
                if "off" in args:  # no console: /console is an SQS request like any other
                    assert status == 404 and "lqs console" not in body, (status, body)
                else:  # a console page, or the login form's redirect
                    assert status in (200, 303), (status, body)
                expected = warned and off_loopback
                assert ("warning" in text and "/console" in text) == expected, (args, listen, text)
    finally:
        os.unlink(keys.name)


def run(screenshot):
    from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    keys = tempfile.NamedTemporaryFile("w", suffix=".keys", delete=False)
    keys.write("%s %s\n" % (KEY, SECRET))
    keys.close()
    server = Lqsd("--auth-file", keys.name, "--console-sample-seconds", "1")
    driver = None
    try:
        sqs = boto3.client("sqs", endpoint_url=server.url, region_name="us-east-1",
                           aws_access_key_id=KEY, aws_secret_access_key=SECRET,
                           config=Config(retries={"max_attempts": 1}))
        dlq_url = sqs.create_queue(QueueName="orders-dlq")["QueueUrl"]
        dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq_url, AttributeNames=["QueueArn"])[
            "Attributes"]["QueueArn"]
        url = sqs.create_queue(QueueName="orders", Attributes={
            "RedrivePolicy": '{"deadLetterTargetArn":"%s","maxReceiveCount":"1"}' % dlq_arn})[
            "QueueUrl"]
        sqs.create_queue(QueueName="invoices")
        # Three messages that fail twice end up in the dead-letter queue.
        for i in range(3):
            sqs.send_message(QueueUrl=url, MessageBody="failed order %d" % i)
        for _ in range(2):
            sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=0)
        assert "Messages" not in sqs.receive_message(QueueUrl=url, VisibilityTimeout=0)
        peek_id = sqs.send_message(
            QueueUrl=url, MessageBody='{"order": 42, "item": "peek me"}',
            MessageAttributes={"tenant": {"DataType": "String", "StringValue": "acme"}})[
            "MessageId"]

        driver = browser()
        wait = WebDriverWait(driver, WAIT, ignored_exceptions=[StaleElementReferenceException])
        find = driver.find_element

        def text_of(css):
            # The page redraws its tables every refresh: an element found may be gone.
            try:
                elements = driver.find_elements(By.CSS_SELECTOR, css)
                return elements[0].text if elements else None
            except StaleElementReferenceException:
                return None

        def until(what, predicate):
            try:
                wait.until(lambda d: predicate())
            except TimeoutException:
                driver.save_screenshot(screenshot + ".failed.png")
                raise AssertionError("timed out waiting for %s (the page: %s.failed.png)"
                                     % (what, screenshot))

        # Not logged in: the console sends the browser to the login form.
        driver.get(server.url + "/console")
        until("the login form", lambda: "/console/login" in driver.current_url)
        find(By.ID, "access_key_id").send_keys(KEY)
        find(By.ID, "secret").send_keys("not the secret")
        find(By.ID, "login-button").click()
        until("the refusal", lambda: text_of("#login-error") is not None)
        find(By.ID, "access_key_id").clear()
        find(By.ID, "access_key_id").send_keys(KEY)
        find(By.ID, "secret").send_keys(SECRET)
        find(By.ID, "login-button").click()
        until("the console", lambda: driver.current_url.endswith("/console/"))

        # The queue list and its counts, refreshed by the page itself.
        orders = 'tr[data-queue="orders"] '
        until("the queues", lambda: text_of(orders + 'td[data-field="visible"]') == "1")
        assert text_of('tr[data-queue="orders-dlq"] td[data-field="visible"]') == "3"
        assert text_of('tr[data-queue="invoices"] td[data-field="visible"]') == "0"
        assert "orders-dlq" in text_of(orders + "td:last-child")
        dlq_row = 'tr[data-dlq="orders-dlq"] '
        until("the DLQ view", lambda: text_of(dlq_row + 'td[data-field="depth"]') == "3")
        assert text_of(dlq_row + 'td[data-field="sources"]') == "orders"
        sqs.send_message(QueueUrl=url, MessageBody="one more")
        until("the refresh", lambda: text_of(orders + 'td[data-field="visible"]') == "2")

        # The message browser: a peek shows bodies and attributes.
        find(By.CSS_SELECTOR, orders + "button").click()
        until("the detail", lambda: find(By.ID, "detail").is_displayed())
        until("the peek", lambda: len(driver.find_elements(
            By.CSS_SELECTOR, "#messages tbody tr")) == 2)
        row = 'tr[data-message-id="%s"] ' % peek_id
        assert '"item": "peek me"' in text_of(row + "pre.body"), text_of(row + "pre.body")
        assert "tenant (String) = acme" in text_of(row + ".attrs")
        # Search by message id.
        find(By.ID, "search-id").send_keys(peek_id)
        find(By.ID, "search-button").click()
        until("the search", lambda: len(driver.find_elements(
            By.CSS_SELECTOR, "#messages tbody tr")) == 1)
        assert text_of("#messages tbody tr code") == peek_id
        # The charts: lqsd samples every second here; the page draws the history.
        until("the depth chart", lambda: int(find(By.ID, "chart-depth").get_attribute(
            "data-samples") or 0) >= 1 or find(By.CSS_SELECTOR, orders + "button").click())
        assert driver.find_elements(By.CSS_SELECTOR, "#chart-depth polyline")
        assert driver.find_elements(By.CSS_SELECTOR, "#chart-age polyline")

        # Redrive the dead-letter queue and watch the counts move.
        find(By.CSS_SELECTOR, dlq_row + "button.redrive").click()
        until("the redrive", lambda: text_of(dlq_row + 'td[data-field="depth"]') == "0")
        until("the sources' count", lambda: text_of(orders + 'td[data-field="visible"]') == "5")
        until("the task's progress", lambda: "COMPLETED: 3 of 3 moved" in (
            text_of(dlq_row + 'td[data-field="task"]') or ""))
        find(By.ID, "peek-button").click()
        until("the redriven messages", lambda: len(driver.find_elements(
            By.CSS_SELECTOR, "#messages tbody tr")) == 5)
        time.sleep(1.5)  # let the chart take in a sample of the redriven queue for the picture
        find(By.CSS_SELECTOR, orders + "button").click()
        until("the peek", lambda: len(driver.find_elements(
            By.CSS_SELECTOR, "#messages tbody tr")) == 5)
        driver.save_screenshot(screenshot)

        # Purge, after a confirmation (Cancel first: nothing happens).
        find(By.ID, "purge-button").click()
        until("the confirmation", lambda: find(By.ID, "purge-confirm").is_displayed())
        assert "Delete all 5 messages of orders?" in find(By.ID, "purge-question").text
        find(By.ID, "purge-no").click()
        assert not find(By.ID, "purge-confirm").is_displayed()
        assert sqs.get_queue_attributes(QueueUrl=url, AttributeNames=[
            "ApproximateNumberOfMessages"])["Attributes"]["ApproximateNumberOfMessages"] == "5"
        find(By.ID, "purge-button").click()
        find(By.ID, "purge-yes").click()
        until("the purge", lambda: text_of(orders + 'td[data-field="visible"]') == "0")
        assert "Purged orders" in find(By.ID, "action-result").text

        # Send a test message.
        body = find(By.ID, "send-body")
        body.clear()
        body.send_keys("test message from the browser")
        find(By.ID, "send-button").click()
        until("the send", lambda: "Sent message" in find(By.ID, "action-result").text)
        until("the count", lambda: text_of(orders + 'td[data-field="visible"]') == "1")
        got = sqs.receive_message(QueueUrl=url)["Messages"]
        assert [m["Body"] for m in got] == ["test message from the browser"], got

        # Logging out ends the session: the console asks for a login again.
        find(By.ID, "logout-button").click()
        until("the login form", lambda: "/console/login" in driver.current_url)
        driver.get(server.url + "/console/")
        assert "/console/login" in driver.current_url
    finally:
        if driver is not None:
            driver.quit()
        code = server.stop()
        os.unlink(keys.name)
    assert code == 0, "lqsd exited with %d" % code


def main():
    reason = missing()
    if reason:
        return missing_client.script_exit(reason)
    screenshot = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        tempfile.gettempdir(), "console.png")
    started = time.time()
    try:
        check_off_loopback_warning()
        run(screenshot)
    except AssertionError as e:
        print("FAIL: %s" % e, flush=True)
        return 1
    print("ok: console checked in a browser in %.1f s; screenshot %s"
          % (time.time() - started, screenshot), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
