def format_address(addr):
    street = addr["street"].strip()
    if addr.get("unit"):
        street += " Apt " + str(addr["unit"]).strip()
    city = addr["city"].strip().title()
    state = addr["state"].strip().upper()
    zip_code = str(addr["zip"]).strip().zfill(5)
    return f"{street}, {city}, {state} {zip_code}"
