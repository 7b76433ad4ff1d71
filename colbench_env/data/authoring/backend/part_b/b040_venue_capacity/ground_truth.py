def venue_capacity(area_sqm, layout):
    import math
    per_person = {"standing": 0.5, "theatre": 0.8, "banquet": 1.4}.get(layout.lower(), 1.0)
    return math.floor(round(area_sqm * 0.9 / per_person, 6))
