// The hosted checkout page's script (served by src/api/routes/checkout.ts from
// /checkout/assets/checkout.js; src/checkout/page.ts renders the page that loads it).
// Plain ES2017, no framework, no build step: a form, two POSTs, and polling of the status until the
// payin ends. The page hands over its data in <script type="application/json" id="checkout-data">.
(function () {
  var data = JSON.parse(document.getElementById('checkout-data').textContent);
  var t = data.texts;
  var form = document.getElementById('form');
  var provider = document.getElementById('provider');
  var msisdn = document.getElementById('msisdn');
  var otp = document.getElementById('otp');
  var otpField = document.getElementById('otp-field');
  var confirmBtn = document.getElementById('confirm');
  var declineBtn = document.getElementById('decline');
  var statusEl = document.getElementById('status');
  var formError = document.getElementById('form-error');
  var base = encodeURIComponent(data.id);
  var polling = false;
  // Set once the workflow has the customer's answer: the stored record a poll reads can lag behind
  // the answer by a moment, and must not bring the form back.
  var answered = false;

  function fill(text, vars) {
    return text.replace(/\{(\w+)\}/g, function (_, k) {
      return vars[k] == null ? '' : vars[k];
    });
  }
  function say(text, busy) {
    statusEl.textContent = text;
    statusEl.className = busy ? 'busy' : '';
  }
  function chosen() {
    return data.providers[provider.value] || {};
  }
  function syncOtp() {
    var needs = !!chosen().otpRequired;
    otpField.hidden = !needs;
    otp.required = needs;
  }
  function busy(on) {
    confirmBtn.disabled = on;
    declineBtn.disabled = on;
    provider.disabled = on;
    msisdn.disabled = on;
    otp.disabled = on;
  }
  function clearErrors() {
    formError.textContent = '';
    ['provider', 'msisdn', 'otp'].forEach(function (f) {
      var el = document.getElementById(f + '-error');
      el.textContent = '';
      el.hidden = true;
      document.getElementById(f).removeAttribute('aria-invalid');
    });
  }
  function showErrors(problem) {
    var first = null;
    (problem.errors || []).forEach(function (e) {
      var el = document.getElementById(e.path + '-error');
      if (!el) return;
      el.textContent = e.message;
      el.hidden = false;
      var input = document.getElementById(e.path);
      input.setAttribute('aria-invalid', 'true');
      if (!first) first = input;
    });
    formError.textContent = first ? t.fixErrors : problem.detail || problem.title || t.unavailable;
    if (first) first.focus();
  }
  function show(state) {
    if (state.final) {
      form.hidden = true;
      var done = state.confirmationStatus === 'declined' ? t.declined : t[state.status] || t.failed;
      say(done + (state.redirectUrl ? ' ' + t.redirecting : ''), !!state.redirectUrl);
      if (state.redirectUrl)
        setTimeout(function () {
          location.replace(state.redirectUrl);
        }, 800);
      return true;
    }
    if (state.awaitingCustomer && !answered) {
      form.hidden = false;
      return false;
    }
    form.hidden = true;
    // The operator's own page (WAVE) appears in the record once the operator answered the request:
    // the customer who just answered here goes there to approve.
    if (answered && state.paymentUrl) {
      say(fill(t.redirectingToOperator, { operator: chosen().name }), true);
      location.assign(state.paymentUrl);
      return true;
    }
    var msg = t.waitingPush;
    if (state.ussdCode) msg += ' ' + fill(t.ussdFallback, { ussd: state.ussdCode });
    say(msg, true);
    return false;
  }
  function poll() {
    if (polling) return;
    polling = true;
    (function tick() {
      fetch(base + '/status', { headers: { accept: 'application/json' }, cache: 'no-store' })
        .then(function (r) {
          if (!r.ok) throw new Error(String(r.status));
          return r.json();
        })
        .then(function (state) {
          if (!show(state)) setTimeout(tick, 1500);
        })
        .catch(function () {
          say(t.unavailable, true);
          setTimeout(tick, 3000);
        });
    })();
  }
  function send(path, body, pending) {
    clearErrors();
    busy(true);
    say(pending, true);
    return fetch(base + path, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'accept-language': data.lang,
      },
      body: JSON.stringify(body),
    })
      .then(function (r) {
        return r
          .json()
          .catch(function () {
            return {};
          })
          .then(function (b) {
            return { status: r.status, body: b };
          });
      })
      .then(
        function (res) {
          if (res.status === 200) {
            answered = true;
            return res.body;
          }
          if (res.status === 409) {
            poll();
            return null;
          }
          // Queued, not yet taken by the workflow: say so, keep the form locked and follow the state.
          if (res.status === 503 && res.body.code === 'ANSWER_PENDING') {
            answered = true;
            say(res.body.detail, true);
            poll();
            return null;
          }
          busy(false);
          say('', false);
          showErrors(res.body);
          return null;
        },
        function () {
          busy(false);
          say(t.unavailable, false);
          return null;
        },
      );
  }

  provider.addEventListener('change', syncOtp);
  form.addEventListener('submit', function (ev) {
    ev.preventDefault();
    var p = chosen();
    var body = { provider: provider.value, msisdn: msisdn.value };
    if (p.otpRequired) body.otp = otp.value;
    send('/confirm', body, fill(t.sending, { operator: p.name })).then(function (state) {
      if (!state) return;
      if (state.paymentUrl && !state.final) {
        say(fill(t.redirectingToOperator, { operator: p.name }), true);
        location.assign(state.paymentUrl);
        return;
      }
      if (!show(state)) poll();
    });
  });
  declineBtn.addEventListener('click', function (ev) {
    // A submit button, for pages without JavaScript (POST /checkout/:id): here the script answers.
    ev.preventDefault();
    send('/decline', {}, t.declining).then(function (state) {
      if (state && !show(state)) poll();
    });
  });

  syncOtp();
  if (!show(data.state)) {
    if (data.state.awaitingCustomer) provider.focus();
    else poll();
  }
})();
