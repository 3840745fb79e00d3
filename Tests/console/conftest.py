"""Fixtures of the console's browser tests: one ferryd (with its private PostgreSQL), one loopback
origin and one headless Chromium for the whole run; a fresh tenant for each test that wants one."""

import os
import signal
import uuid

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from gateway import Client, Ferryd
from origin import Origin
from console_page import ConsolePage

REPOSITORY = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))


def _interrupt(signum, frame):
    raise KeyboardInterrupt(f'signal {signum}')


# The run's time limit (Tests/console/run) ends it with SIGTERM: as an interrupt, pytest still tears the
# fixtures down, so no ferryd, PostgreSQL or Chromium outlives the run.
signal.signal(signal.SIGTERM, _interrupt)


@pytest.fixture(scope='session')
def origin():
    server = Origin()
    yield server
    server.close()


@pytest.fixture(scope='session')
def ferryd():
    binary = os.environ.get('FERRYD', os.path.join(REPOSITORY, '.build', 'debug', 'ferryd'))
    server = Ferryd(binary, REPOSITORY)
    yield server
    server.stop()


@pytest.fixture(scope='session')
def admin(ferryd):
    return Client(ferryd.url, ferryd.admin_key)


@pytest.fixture()
def tenant(admin, ferryd):
    """A new tenant's API client (its key in .key)."""
    created = admin.ok('POST', '/v1/admin/tenants', {'name': f'console-{uuid.uuid4().hex[:8]}'})
    client = Client(ferryd.url, created['api_key'])
    client.id = created['id']
    return client


@pytest.fixture(scope='session')
def driver():
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get('CHROMIUM', '/usr/bin/chromium')
    for argument in ('--headless=new', '--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu',
                     '--window-size=1280,900', '--no-first-run', '--disable-extensions',
                     '--disable-background-networking', '--disable-component-update', '--disable-sync'):
        options.add_argument(argument)
    options.set_capability('goog:loggingPrefs', {'browser': 'ALL'})
    service = Service(executable_path=os.environ.get('CHROMEDRIVER', '/usr/bin/chromedriver'))
    browser = webdriver.Chrome(options=options, service=service)
    browser.set_page_load_timeout(60)
    yield browser
    browser.quit()


@pytest.fixture()
def console(driver, ferryd):
    """The console signed out, on a desktop-width window in light mode."""
    page = ConsolePage(driver, ferryd.url)
    page.reset()
    yield page
    page.check_no_policy_violations()
