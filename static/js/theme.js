// Applies the stored theme before first paint (loaded blocking in <head>; CSP forbids inline scripts).
// "auto" (no stored value) follows prefers-color-scheme through the stylesheet.
(function () {
  try {
    var theme = localStorage.getItem('theme');
    if (theme === 'light' || theme === 'dark') document.documentElement.dataset.theme = theme;
  } catch (e) {
    /* storage disabled: follow the system */
  }
})();
