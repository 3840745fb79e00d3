"""The console as a person uses it, through Selenium: sign in, navigate, read the jobs table."""

import base64
import os

from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as seen
from selenium.webdriver.support.ui import WebDriverWait

SCREENSHOTS = os.environ.get('FERRY_CONSOLE_SCREENSHOTS')
WAIT_SECONDS = 60


class ConsolePage:
    def __init__(self, driver, base):
        self.driver = driver
        self.base = base

    def reset(self):
        self.driver.set_window_size(1280, 900)
        self.driver.execute_cdp_cmd('Emulation.setEmulatedMedia', {'features': [{'name': 'prefers-color-scheme', 'value': 'light'}]})
        self.driver.get(f'{self.base}/console')
        self.driver.execute_script('sessionStorage.clear()')
        self.driver.get(f'{self.base}/console#/')
        self.driver.refresh()
        self.driver.get_log('browser')  # what earlier tests left

    def wait(self, condition, seconds=WAIT_SECONDS, explain=None):
        """Waits for condition; on a timeout, the exception's message is explain() (what the page
        showed instead), which is what a CI log's one-line summary of the failure keeps."""
        # The job page redraws its summary on every event: an element read a moment ago may be gone.
        waiting = WebDriverWait(self.driver, seconds, poll_frequency=0.1,
                                ignored_exceptions=(NoSuchElementException, StaleElementReferenceException))
        try:
            return waiting.until(condition)
        except TimeoutException:
            if explain is None:
                raise
            raise TimeoutException(f'not within {seconds} s: {explain()}') from None

    def find(self, css):
        return self.wait(seen.presence_of_element_located((By.CSS_SELECTOR, css)))

    def visible(self, css):
        return self.wait(seen.visibility_of_element_located((By.CSS_SELECTOR, css)))

    def all(self, css):
        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def click(self, css):
        self.wait(seen.element_to_be_clickable((By.CSS_SELECTOR, css))).click()

    def sign_in(self, key):
        field = self.visible('#api-key')
        field.clear()
        field.send_keys(key)
        self.click('#sign-in-form button[type=submit]')
        self.visible('#nav')

    def sign_out(self):
        self.click('#sign-out')
        self.visible('#sign-in')

    def go(self, hash_route):
        self.driver.execute_script('location.hash = arguments[0]', hash_route)

    def problem_text(self):
        return self.visible('#problem').text

    def job_state(self, job):
        return self.find(f'tr[data-job="{job}"]').get_attribute('data-state')

    def wait_for_row_state(self, job, state):
        self.wait(lambda d: self.job_state(job) == state)

    def wait_for_job_page_state(self, state):
        self.wait(lambda d: d.find_element(By.CSS_SELECTOR, '#job-state').text == state.replace('_', ' '))

    def fact(self, section, term):
        """The value of `term` in a job page section's facts (the card whose heading is `section`), or None."""
        return self.driver.execute_script("""
            const [section, term] = arguments;
            for (const card of document.querySelectorAll('section.card')) {
              const heading = card.querySelector('h2');
              if ((heading ? heading.textContent : '') !== section && !(section === '' && !heading)) continue;
              for (const dt of card.querySelectorAll('dl.facts > dt')) if (dt.textContent === term) return dt.nextElementSibling.textContent;
            }
            return null;""", section, term)

    def row_ids(self):
        return [row.get_attribute('data-job') for row in self.all('#jobs tbody tr[data-job]')]

    def storage(self):
        return self.driver.execute_script('return JSON.stringify(sessionStorage)')

    def screenshot(self, name):
        """The whole page, not only what the window shows, as SCREENSHOTS/name.png."""
        if SCREENSHOTS:
            os.makedirs(SCREENSHOTS, exist_ok=True)
            width, height = self.driver.execute_script(
                'return [document.documentElement.clientWidth, document.documentElement.scrollHeight]')
            shot = self.driver.execute_cdp_cmd('Page.captureScreenshot', {
                'format': 'png', 'captureBeyondViewport': True, 'clip': {'x': 0, 'y': 0, 'width': width, 'height': height, 'scale': 1}})
            with open(os.path.join(SCREENSHOTS, f'{name}.png'), 'wb') as file:
                file.write(base64.b64decode(shot['data']))

    def check_no_policy_violations(self):
        """The Content-Security-Policy refused nothing the console itself loads or runs."""
        refused = [entry['message'] for entry in self.driver.get_log('browser')
                   if 'Content Security Policy' in entry['message'] or 'Refused to' in entry['message']]
        assert refused == [], refused
