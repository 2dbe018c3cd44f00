// The config editor's plain body editor: line numbers beside the textarea that follow its lines and
// its scrolling, "Go to line N" on a parse error, and no implicit submit (Enter in a field would
// post the form without htmx, which the server refuses), and a warning before leaving unsaved edits.
// The page reads without it.
(function () {
  'use strict';

  function numbers(n) {
    var out = new Array(n);
    for (var i = 0; i < n; i++) out[i] = i + 1;
    return out.join('\n');
  }

  function setupGutter(textarea, gutter) {
    var shown = -1;
    function update() {
      var lines = textarea.value.split('\n').length;
      if (lines !== shown) {
        shown = lines;
        gutter.textContent = numbers(lines);
      }
      gutter.scrollTop = textarea.scrollTop;
    }
    textarea.addEventListener('input', update);
    textarea.addEventListener('scroll', function () {
      gutter.scrollTop = textarea.scrollTop;
    });
    update();
  }

  function gotoLine(textarea, line) {
    var lines = textarea.value.split('\n');
    var start = 0;
    for (var i = 0; i < line - 1 && i < lines.length; i++) start += lines[i].length + 1;
    var end = start + (lines[line - 1] || '').length;
    textarea.focus();
    textarea.setSelectionRange(start, end);
    var height = textarea.scrollHeight / Math.max(lines.length, 1);
    textarea.scrollTop = Math.max(0, (line - 3) * height);
  }

  // Leaving the page with edits not saved asks first (issue 30). A save the server accepted answers
  // HX-Redirect, which is not leaving an edit behind, so it clears the mark before htmx follows it.
  function setupUnsavedWarning(form) {
    var dirty = false;
    form.addEventListener('input', function () {
      dirty = true;
    });
    document.body.addEventListener('htmx:beforeOnLoad', function (event) {
      var xhr = event.detail && event.detail.xhr;
      if (xhr && xhr.getResponseHeader('HX-Redirect')) dirty = false;
    });
    window.addEventListener('beforeunload', function (event) {
      if (!dirty) return;
      event.preventDefault();
      event.returnValue = '';
    });
  }

  document.addEventListener('DOMContentLoaded', function () {
    var form = document.querySelector('form[data-config-editor]');
    if (!form) return;
    var textarea = form.querySelector('textarea[data-line-numbers]');
    var gutter = form.querySelector('[data-gutter]');
    if (textarea && gutter) setupGutter(textarea, gutter);
    form.addEventListener('submit', function (event) {
      event.preventDefault();
    });
    setupUnsavedWarning(form);
    form.addEventListener('click', function (event) {
      var button = event.target.closest ? event.target.closest('[data-goto-line]') : null;
      if (button && textarea) gotoLine(textarea, Number(button.getAttribute('data-goto-line')));
    });
  });
})();
