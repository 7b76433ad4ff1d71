def study_plan(subjects, hours):
    plan = {name: 0.5 for name, difficulty in subjects.items() if difficulty == 1}
    rest = {name: difficulty for name, difficulty in subjects.items() if difficulty != 1}
    remaining = hours - 0.5 * len(plan)
    total = sum(rest.values())
    for name, difficulty in rest.items():
        plan[name] = round(remaining * difficulty / total * 2) / 2
    return plan
