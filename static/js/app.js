// Small progressive enhancements; every page works without them.
// - theme toggle: auto -> light -> dark -> auto, stored in localStorage;
// - filter form: selects submit on change, empty fields are not sent;
// - matcher inputs (fleet box, config selector): key and value completion of a list's last matcher
//   from /api/attributes and /api/attributes/values;
// - job buttons: a refused write still shows the server's answer, which says why, and a notice goes
//   once the job has moved on.
(function () {
  'use strict';

  var themes = ['auto', 'light', 'dark'];
  var labels = { auto: 'Auto', light: 'Light', dark: 'Dark' };

  function currentTheme() {
    return document.documentElement.dataset.theme || 'auto';
  }

  function showTheme(button) {
    var label = button.querySelector('[data-theme-label]');
    if (label) label.textContent = labels[currentTheme()];
    button.setAttribute('title', 'Theme: ' + labels[currentTheme()] + ' (click to change)');
  }

  function setupThemeToggle() {
    var button = document.querySelector('[data-theme-toggle]');
    if (!button) return;
    showTheme(button);
    button.addEventListener('click', function () {
      var next = themes[(themes.indexOf(currentTheme()) + 1) % themes.length];
      try {
        if (next === 'auto') localStorage.removeItem('theme');
        else localStorage.setItem('theme', next);
      } catch (e) {
        /* storage disabled: the choice lasts for this page only */
      }
      if (next === 'auto') delete document.documentElement.dataset.theme;
      else document.documentElement.dataset.theme = next;
      showTheme(button);
    });
  }

  function setupFilterForm() {
    var form = document.querySelector('form[data-filter-form]');
    if (!form) return;
    form.querySelectorAll('select[data-autosubmit]').forEach(function (select) {
      select.addEventListener('change', function () {
        form.requestSubmit();
      });
    });
    // Keep the URL short: "any" selects and an empty matcher are not sent.
    form.addEventListener('submit', function () {
      form.querySelectorAll('select, input[type="text"], input[type="search"]').forEach(function (el) {
        if (el.name && el.value.trim() === '') el.disabled = true;
      });
    });
  }

  var operators = /(!=|!~|=~|=)/;

  function fetchJson(url) {
    return fetch(url, { headers: { Accept: 'application/json' }, credentials: 'same-origin' }).then(
      function (res) {
        if (!res.ok) throw new Error('HTTP ' + res.status);
        return res.json();
      },
    );
  }

  function fillList(list, options) {
    var seen = {};
    list.replaceChildren();
    options.slice(0, 50).forEach(function (value) {
      if (seen[value]) return;
      seen[value] = true;
      var option = document.createElement('option');
      option.value = value;
      list.appendChild(option);
    });
  }

  // Where the list's last matcher starts: the same split as the server's (matcherList.ts), so a comma
  // inside a quoted value does not start a new matcher.
  function lastMatcherStart(text) {
    var start = 0;
    var i = 0;
    while (i < text.length) {
      start = i;
      var m = operators.exec(text.slice(i));
      var comma = text.indexOf(',', i);
      if (!m || (comma >= 0 && comma < i + m.index)) {
        if (comma < 0) return start;
        i = comma + 1;
        continue;
      }
      var k = i + m.index + m[1].length;
      while (text[k] === ' ') k++;
      var quote = text[k];
      var end = -1;
      if (quote === '"' || quote === "'") {
        for (var j = k + 1; j < text.length && end < 0; j++) {
          if (text[j] !== quote) continue;
          var n = j + 1;
          while (text[n] === ' ') n++;
          if (n >= text.length) return start;
          if (text[n] === ',') end = n;
        }
        if (end < 0) return start;
      } else {
        end = text.indexOf(',', k);
        if (end < 0) return start;
      }
      i = end + 1;
    }
    return i;
  }

  // Status fields are the agent's, not attributes (listTerms.ts); a config selector refuses them,
  // so only the fleet box (data-matcher="fleet") offers them.
  function statusValues(input, key) {
    if (input.getAttribute('data-matcher') !== 'fleet') return undefined;
    if (key === 'healthy' || key === 'connected' || key === 'via_gateway') return ['true', 'false'];
    if (key === 'config_state') return (input.getAttribute('data-config-states') || '').split(',');
    return undefined;
  }

  function setupMatcherInput(input) {
    var list = document.getElementById(input.getAttribute('list'));
    if (!list) return;
    var timer = 0;
    var lastQuery = '';
    function complete() {
      var whole = input.value;
      var cut = lastMatcherStart(whole);
      var head = whole.slice(0, cut);
      if (head !== '' && !/ $/.test(head)) head += ' ';
      var text = whole.slice(cut);
      var m = operators.exec(text);
      var url;
      var build;
      if (!m) {
        var prefix = text.trim();
        url = '/api/attributes?prefix=' + encodeURIComponent(prefix);
        var fields = statusValues(input, 'healthy')
          ? ['healthy', 'connected', 'via_gateway', 'config_state'].filter(function (f) {
              return f.indexOf(prefix) >= 0;
            })
          : [];
        build = function (body) {
          return fields.concat(body.keys || []).map(function (k) {
            return head + k + '=';
          });
        };
      } else {
        var key = text.slice(0, m.index).trim();
        var op = m[1];
        var value = text
          .slice(m.index + op.length)
          .trim()
          .replace(/^["']/, '');
        if (!key || op === '=~' || op === '!~') return fillList(list, []);
        var known = statusValues(input, key);
        if (known) {
          lastQuery = '';
          return fillList(
            list,
            known
              .filter(function (v) {
                return v.indexOf(value) === 0;
              })
              .map(function (v) {
                return head + key + op + v;
              }),
          );
        }
        url =
          '/api/attributes/values?key=' + encodeURIComponent(key) + '&prefix=' + encodeURIComponent(value);
        build = function (body) {
          return (body.values || []).map(function (v) {
            return head + key + op + (/[,"' ]/.test(v) ? '"' + v + '"' : v);
          });
        };
      }
      if (url === lastQuery) return;
      lastQuery = url;
      fetchJson(url)
        .then(function (body) {
          if (url === lastQuery) fillList(list, build(body));
        })
        .catch(function () {
          fillList(list, []);
        });
    }
    input.addEventListener('input', function () {
      clearTimeout(timer);
      timer = setTimeout(complete, 150);
    });
    input.addEventListener('focus', complete);
  }

  // Every filter box completes keys and values: the fleet box and a config's selector.
  function setupMatcherCompletion() {
    document.querySelectorAll('input[data-matcher]').forEach(setupMatcherInput);
  }

  function showRefusal(notice, status, text) {
    var banner = document.createElement('div');
    banner.className = 'banner error';
    banner.setAttribute('role', 'alert');
    var title = document.createElement('strong');
    title.textContent = 'Refused (' + status + ')';
    var reason = document.createElement('span');
    reason.textContent = text.trim() || 'the server refused this action';
    banner.append(title, reason);
    notice.replaceChildren(banner);
  }

  // htmx swaps only 2xx answers. A job button's refusal (403, 409, ...) is the job's fragment with a
  // notice saying why: swap it too. A refusal that is not HTML (the authentication layer answers in
  // plain text) goes into the notice area named by data-write-notice.
  function setupWriteAnswers() {
    document.body.addEventListener('htmx:beforeSwap', function (event) {
      var detail = event.detail;
      var elt = detail.requestConfig && detail.requestConfig.elt;
      var owner = elt && elt.closest ? elt.closest('[data-write-notice]') : null;
      if (!owner || detail.xhr.status < 400) return;
      detail.isError = false;
      if ((detail.xhr.getResponseHeader('Content-Type') || '').indexOf('text/html') === 0) {
        detail.shouldSwap = true;
        return;
      }
      detail.shouldSwap = false;
      var notice = document.querySelector(owner.getAttribute('data-write-notice'));
      if (notice) showRefusal(notice, detail.xhr.status, detail.xhr.responseText || '');
    });
  }

  // A job button's notice names the job status it was written for; once polling shows the job in
  // another status, the notice no longer describes the page and goes.
  function setupNoticeExpiry() {
    document.body.addEventListener('htmx:afterSwap', function () {
      var notice = document.querySelector('#job-notice[data-job-status]');
      var live = document.querySelector('#job-live[data-job-status]');
      if (!notice || !live || notice.dataset.jobStatus === live.dataset.jobStatus) return;
      notice.removeAttribute('data-job-status');
      notice.replaceChildren();
    });
  }

  document.addEventListener('DOMContentLoaded', function () {
    setupThemeToggle();
    setupFilterForm();
    setupMatcherCompletion();
    setupWriteAnswers();
    setupNoticeExpiry();
  });
})();
