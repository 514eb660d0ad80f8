"""Admission webhooks (upstream's MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins): which
webhooks a request goes to (matching), the AdmissionReview exchanged (review), the plugins that stop a write for
its calls and apply their answers (plugins), and the calls themselves (calls)."""
