"""How often live streams look and speak, shared by the hub (api/hub.py), the streams served
in the API process (api/live.py, api/player_stream.py) and the fan-out (api/fanout.py)."""

GATHER = 0.1  # seconds a woken stream waits at least for more commits before it reads
HEARTBEAT = 15.0  # seconds between keep-alive comments on a quiet stream
