// People's sign-ins and the audit log on the server registry (docs/security.md "Signing people in",
// "Audit log"): svc_ui_sign_ins_total{result} counts every sign-in outcome (a refusal by its
// reason), svc_audit_append_failures_total every audit entry that could not be stored (the write
// had happened; the entry is still logged). Fed by the web layer through the root.

import { Counter, type Registry as PromRegistry } from 'prom-client';

export interface SignInCounters {
  readonly signIn: (result: string) => void;
  readonly auditFailed: () => void;
}

export function registerSignInMetrics(register: PromRegistry): SignInCounters {
  const signIns = new Counter({
    name: 'svc_ui_sign_ins_total',
    help: 'Sign-in outcomes on the UI: signed_in, first_run, signed_out, and refusals (no_pending, provider_error, rejected, no_role, code_refused).',
    labelNames: ['result'],
    registers: [register],
  });
  const auditFailures = new Counter({
    name: 'svc_audit_append_failures_total',
    help: 'Audit entries that could not be stored (the write happened; the entry was logged).',
    registers: [register],
  });
  return { signIn: (result) => signIns.inc({ result }), auditFailed: () => auditFailures.inc() };
}
