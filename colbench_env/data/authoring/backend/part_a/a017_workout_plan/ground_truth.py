def workout_plan(day, level):
    activities = {
        "Monday": "strength", "Tuesday": "cardio", "Wednesday": "yoga", "Thursday": "strength",
        "Friday": "cardio", "Saturday": "long run", "Sunday": "rest",
    }
    minutes = {"beginner": 20, "intermediate": 40, "advanced": 60}[level]
    activity = activities[day]
    if activity == "rest":
        return ("rest", 0)
    if activity == "long run":
        minutes *= 2
    return (activity, minutes)
