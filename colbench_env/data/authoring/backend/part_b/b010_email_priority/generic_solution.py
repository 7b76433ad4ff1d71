def email_priority(sender, subject):
    subj = subject.lower()
    if "urgent" in subj or "asap" in subj:
        return "high"
    if "newsletter" in subj or "noreply" in sender.lower():
        return "low"
    return "normal"
