// Site-wide progressive enhancement. The site works fully without it.

// Move focus to an error summary so screen-reader and keyboard users hear about problems at once.
const summary = document.querySelector<HTMLElement>(".error-summary");
if (summary) {
  summary.setAttribute("tabindex", "-1");
  summary.focus();
}
