def order_playlist(tracks):
    return [t["title"] for t in sorted(tracks, key=lambda t: -t["plays"])]
