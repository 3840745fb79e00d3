// The API's per-field errors (a 400 invalid_request's `errors`), shown next to the fields they name.
// A control says which field it edits in data-field ("request.url"); an error for "request.headers.X-A"
// goes to the control of the longest field that is a prefix of it.

export function clearFieldErrors(form) {
  for (const control of form.querySelectorAll('[data-field]')) control.removeAttribute('aria-invalid');
  for (const message of form.querySelectorAll('.field-error')) {
    message.hidden = true;
    message.textContent = '';
  }
}

/** Shows each error beside its control; returns the errors no control took. */
export function showFieldErrors(form, errors) {
  clearFieldErrors(form);
  const controls = [...form.querySelectorAll('input[data-field], select[data-field], textarea[data-field]')];
  const unplaced = [];
  let first = null;
  for (const error of errors) {
    const control = controls
      .filter((c) => error.field === c.dataset.field || error.field.startsWith(`${c.dataset.field}.`) || error.field.startsWith(`${c.dataset.field}[`))
      .sort((a, b) => b.dataset.field.length - a.dataset.field.length)[0];
    const message = control && document.getElementById(`${control.id}-error`);
    if (!message) {
      unplaced.push(error);
      continue;
    }
    control.setAttribute('aria-invalid', 'true');
    message.textContent = [message.textContent, `${error.field}: ${error.message}`].filter(Boolean).join('; ');
    message.hidden = false;
    first ??= control;
  }
  first?.focus();
  return unplaced;
}

/** Runs `send` (the form's API call): its problem goes to the page's problem box and its field errors
 *  beside their fields. Resolves to send's result, or undefined when it was refused. */
export async function submitWithFieldErrors(form, shell, send) {
  clearFieldErrors(form);
  try {
    const result = await send();
    shell.clearProblem();
    return result;
  } catch (error) {
    showFieldErrors(form, error.fieldErrors ?? []);
    shell.showProblem(error);
    return undefined;
  }
}
