def workout_plan(day, level):
    plan = {
        "Monday": "cardio", "Tuesday": "strength", "Wednesday": "rest", "Thursday": "cardio",
        "Friday": "strength", "Saturday": "cardio", "Sunday": "rest",
    }
    minutes = {"beginner": 30, "intermediate": 45, "advanced": 60}.get(level, 30)
    activity = plan.get(day, "rest")
    return (activity, 0 if activity == "rest" else minutes)
