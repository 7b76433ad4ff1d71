def order_playlist(tracks):
    remaining = sorted(tracks, key=lambda t: (-t["plays"], t["title"]))
    out = []
    last_artist = None
    while remaining:
        pick = next((t for t in remaining if t["artist"] != last_artist), remaining[0])
        remaining.remove(pick)
        out.append(pick["title"])
        last_artist = pick["artist"]
    return out
