def study_plan(subjects, hours):
    if not subjects:
        return {}
    share = round(hours / len(subjects), 2)
    return {name: share for name in subjects}
