""""Sprawdź się": every self-check's answer stays hidden until the reader opens it, by mouse or by
keyboard. The pages are the built site's pages that have a self-check (never a list written here)."""

from __future__ import annotations

from helpers import site_pages

CHECKS = ".admonition.question"
ANSWERS = f"{CHECKS} details"


def test_self_check_answers_are_hidden_until_opened(browser, server, built_site):
    context = browser.new_context(viewport={"width": 375, "height": 812})
    page = context.new_page()
    try:
        opened = 0
        for path in site_pages(built_site, containing="admonition question"):
            page.goto(server + path, wait_until="domcontentloaded")
            answers = page.locator(ANSWERS)
            assert answers.count() >= 2 * page.locator(CHECKS).count(), path
            for i in range(answers.count()):
                answer = answers.nth(i)
                body = answer.locator(":scope > :not(summary)").first
                assert answer.get_attribute("open") is None, (path, i)
                assert not body.is_visible(), (path, i, "the answer shows before it is opened")
                summary = answer.locator(":scope > summary")
                if i % 2:
                    summary.focus()
                    page.keyboard.press("Enter")
                else:
                    summary.click()
                body.wait_for(state="visible")
                assert body.inner_text().strip(), (path, i, "an empty answer")
                opened += 1
        assert opened >= 2
    finally:
        context.close()
