// The frame the customer's pages share (the checkout, a payment link's page): one card on a phone's
// width, centred on a larger screen. Each page adds its own rules after these.
export const frameStyles = `
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#f3f4f6}
main{max-width:28rem;margin:0 auto;padding:1rem;background:#fff;min-height:100vh}
@media (min-width:32rem){main{margin:2rem auto;min-height:0;border-radius:12px;box-shadow:0 1px 4px rgba(0,0,0,.15);padding:1.5rem}}
nav{text-align:right;font-size:.9rem}
a{color:#0a4f96}
`;
