def email_priority(sender, subject):
    s = sender.strip().lower()
    subj = subject.strip().lower()
    if s == "maria.k@ourco.com":
        return "high"
    if s.startswith("noreply") or s.startswith("no-reply") or subj.startswith("[list]"):
        return "low"
    if s.endswith("@acme-legal.com") or "invoice" in subj or "urgent" in subj:
        return "high"
    return "normal"
