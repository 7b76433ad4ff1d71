def arrival_status(departure, travel_minutes, meeting):
    dep_h, dep_m = map(int, departure.split(":"))
    meet_h, meet_m = map(int, meeting.split(":"))
    arrival = dep_h * 60 + dep_m + travel_minutes
    return "on time" if arrival <= meet_h * 60 + meet_m else "late"
