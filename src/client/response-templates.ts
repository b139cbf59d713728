// The staff view's status form (src/reports/staff/action-forms.tsx, StatusForm): choosing a response template fills
// the public update text with its text, still editable, and only the templates for the chosen status are offered.
// Without this script the form still works: a chosen template's text is published when the text box is left empty.
const form = document.querySelector<HTMLFormElement>("form.status-form");
const status = form?.querySelector<HTMLSelectElement>("select[name=status]");
const note = form?.querySelector<HTMLTextAreaElement>("textarea[name=note]");
const live = form?.querySelector<HTMLElement>("#staff-template-status");

if (form && status && note) {
  const choices = [...form.querySelectorAll<HTMLElement>(".response-templates [data-status]")];
  const none = form.querySelector<HTMLInputElement>("#staff-template");
  const texts = new Set(choices.map((c) => c.querySelector<HTMLInputElement>("input")?.dataset.text ?? ""));
  const say = (message: string) => {
    if (live) live.textContent = message;
  };

  const showFor = () => {
    for (const choice of choices) {
      const fits = choice.dataset.status === status.value;
      choice.hidden = !fits;
      const radio = choice.querySelector<HTMLInputElement>("input");
      if (!fits && radio?.checked && none) none.checked = true;
    }
  };

  form.addEventListener("change", (event) => {
    const target = event.target;
    if (target === status) {
      showFor();
      return;
    }
    if (!(target instanceof HTMLInputElement) || target.name !== "template" || !target.checked) return;
    const text = target.dataset.text;
    if (text === undefined) return;
    // Text of one's own is never replaced; a template's text, unchanged, is.
    if (note.value.trim() === "" || texts.has(note.value)) {
      note.value = text;
      say("The public update text is filled in with the template's text. You can change it.");
    } else {
      say("Your own text is kept: empty the text box first to start from the template.");
    }
  });

  showFor();
  const hint = form.querySelector<HTMLElement>("#staff-template-hint");
  if (hint) hint.textContent = "Choosing a template fills in the public update text below; you can change it.";
  const noteHint = form.querySelector<HTMLElement>("#staff-note-hint");
  if (noteHint) {
    noteHint.textContent =
      "Shown on the public report page, in the feeds and the API, and emailed to the reporter and followers.";
  }
}
