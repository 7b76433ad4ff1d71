def venue_capacity(area_sqm, layout):
    per_person = {"standing": 0.3, "theatre": 0.6, "banquet": 1.2, "classroom": 1.5}.get(layout.lower(), 1.0)
    return int(area_sqm / per_person)
