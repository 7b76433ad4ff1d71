def format_address(addr):
    parts = [addr.get("street"), addr.get("unit"), addr.get("city"), addr.get("state"), addr.get("zip")]
    return ", ".join(str(p) for p in parts if p)
