def arrival_status(departure, travel_minutes, meeting):
    def to_minutes(clock):
        hours, minutes = clock.split(":")
        return int(hours) * 60 + int(minutes)
    arrival = to_minutes(departure) + travel_minutes + 10
    slack = to_minutes(meeting) - arrival
    if slack < 0:
        return "late"
    if slack <= 5:
        return "on time"
    return "early"
