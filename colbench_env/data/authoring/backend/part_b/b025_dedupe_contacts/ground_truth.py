def dedupe_contacts(contacts):
    def email(c):
        return c.get("email", "").strip().lower()
    def phone(c):
        return "".join(ch for ch in c.get("phone", "") if ch.isdigit())
    keep = []
    for i, c in enumerate(contacts):
        dup_later = any((email(c) and email(c) == email(d)) or (phone(c) and phone(c) == phone(d))
                        for d in contacts[i + 1:])
        if not dup_later:
            keep.append(c["name"])
    return keep
