#!/usr/bin/env python3
"""Soak of a running gateway: streams connecting and disconnecting, topics created and deleted,
publishes throughout, for a bounded time. Python's standard library only (asyncio sockets and
urllib), so the clients are nobody's on the team.

Reports at the start, every CHECK seconds and at the end: the gateway's open file descriptors,
heap after a full GC (jcmd GC.run, then the jvm_memory_used_bytes gauge), the sum of the
streamgate_sse_clients gauges, the streams this client holds open, and the event tail's liveness:
the time from publishing to a canary topic to receiving the event on an open stream.

Knobs (environment): GATEWAY (http://127.0.0.1:18080), PID (the gateway's, required),
DURATION seconds (3600), STREAMS concurrent (2000), TOPICS alive at once (200), RATE publishes/s
(100), CHECK seconds (300).
"""
import asyncio
import json
import os
import random
import subprocess
import sys
import time
import urllib.error
import urllib.request

GATEWAY = os.environ.get("GATEWAY", "http://127.0.0.1:18080")
HOST, PORT = GATEWAY.split("//")[1].split(":")[0], int(GATEWAY.rsplit(":", 1)[1])
PID = int(os.environ["PID"])
DURATION = float(os.environ.get("DURATION", "3600"))
STREAMS = int(os.environ.get("STREAMS", "2000"))
TOPICS = int(os.environ.get("TOPICS", "200"))
RATE = float(os.environ.get("RATE", "100"))
CHECK = float(os.environ.get("CHECK", "300"))

alive = []          # topic ids that exist now
generation = [0]
counts = {"created": 0, "deleted": 0, "published": 0, "publishFailed": 0, "streamsOpened": 0,
          "streamsRefused": 0, "streamsReset": 0}
open_streams = [0]


def http(method, path, body=None, timeout=30):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(GATEWAY + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


async def call(method, path, body=None):
    return await asyncio.to_thread(http, method, path, body)


async def churn_topics(deadline):
    """Keeps TOPICS topics alive, deleting the oldest and creating a new one in turn."""
    while time.monotonic() < deadline:
        generation[0] += 1
        topic = "soak-%d" % generation[0]
        status, _ = await call("POST", "/api/v1/topics", {"id": topic})
        if status == 201:
            alive.append(topic)
            counts["created"] += 1
        if len(alive) > TOPICS:
            old = alive.pop(0)
            status, _ = await call("DELETE", "/api/v1/topics/" + old)
            counts["deleted"] += status == 204
        await asyncio.sleep(0.05 if len(alive) < TOPICS else 0.5)


async def publish(deadline):
    while time.monotonic() < deadline:
        if alive:
            topic = random.choice(alive)
            status, _ = await call("POST", "/api/v1/publish/" + topic, {"t": time.time(), "pad": "x" * 100})
            counts["published" if status == 202 else "publishFailed"] += 1
        await asyncio.sleep(1 / RATE)


async def one_stream(deadline):
    """Opens a stream to a live topic, reads it for a while, then closes it (some with a reset)."""
    while time.monotonic() < deadline:
        if not alive:
            await asyncio.sleep(0.5)
            continue
        topic = random.choice(alive)
        try:
            reader, writer = await asyncio.open_connection(HOST, PORT)
        except OSError:
            counts["streamsRefused"] += 1
            await asyncio.sleep(1)
            continue
        open_streams[0] += 1
        try:
            writer.write(("GET /api/v1/stream/%s HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\n\r\n"
                          % (topic, HOST)).encode())
            await writer.drain()
            status = await asyncio.wait_for(reader.readline(), 30)
            if b" 200 " in status:
                counts["streamsOpened"] += 1
            else:
                counts["streamsRefused"] += 1
            end = time.monotonic() + random.uniform(1, 20)
            while time.monotonic() < min(end, deadline):
                chunk = await asyncio.wait_for(reader.read(65536), max(0.1, end - time.monotonic()))
                if not chunk:
                    break
        except (asyncio.TimeoutError, OSError):
            pass
        finally:
            open_streams[0] -= 1
            if random.random() < 0.3:
                # an abrupt close: RST instead of FIN
                sock = writer.get_extra_info("socket")
                if sock is not None:
                    import socket
                    import struct
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                counts["streamsReset"] += 1
            writer.close()


async def canary_latency():
    """Publishes to the canary topic and times its arrival on a fresh stream: the event tail's liveness."""
    reader, writer = await asyncio.open_connection(HOST, PORT)
    try:
        writer.write(("GET /api/v1/stream/soak-canary HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\n\r\n"
                      % HOST).encode())
        await writer.drain()
        buffer = b""
        while b"retry:" not in buffer:
            buffer += await asyncio.wait_for(reader.read(4096), 30)
        marker = str(random.random()).encode()
        started = time.monotonic()
        await call("POST", "/api/v1/publish/soak-canary", {"marker": marker.decode()})
        while marker not in buffer:
            chunk = await asyncio.wait_for(reader.read(4096), 30 - (time.monotonic() - started))
            if not chunk:
                return None
            buffer += chunk
        return round((time.monotonic() - started) * 1000, 1)
    except (asyncio.TimeoutError, OSError):
        return None
    finally:
        writer.close()


def prometheus():
    _, body = http("GET", "/actuator/prometheus")
    return body.decode()


def gauge_sum(text, name, label=None):
    total = 0.0
    for line in text.splitlines():
        if line.startswith(name + "{") and (label is None or label in line):
            total += float(line.rsplit(" ", 1)[1])
    return total


async def measure(label, started):
    subprocess.run(["jcmd", str(PID), "GC.run"], capture_output=True, timeout=60)
    text = await asyncio.to_thread(prometheus)
    row = {
        "at": label,
        "elapsedS": round(time.monotonic() - started),
        "fds": len(os.listdir("/proc/%d/fd" % PID)),
        "heapAfterGcMiB": round(gauge_sum(text, "jvm_memory_used_bytes", 'area="heap"') / 2**20, 1),
        "sseClientsGauge": gauge_sum(text, "streamgate_sse_clients"),
        "streamsHeldByClient": open_streams[0],
        "topicsAlive": len(alive),
        "canaryLatencyMs": await canary_latency(),
        "rssMiB": round(int(open("/proc/%d/status" % PID).read().split("VmRSS:")[1].split()[0]) / 1024),
    }
    row.update(counts)
    print(json.dumps(row), flush=True)
    return row


async def main():
    started = time.monotonic()
    deadline = started + DURATION
    await call("POST", "/api/v1/topics", {"id": "soak-canary"})
    rows = [await measure("start", started)]
    tasks = [asyncio.create_task(churn_topics(deadline)), asyncio.create_task(publish(deadline))]
    tasks += [asyncio.create_task(one_stream(deadline)) for _ in range(STREAMS)]
    while time.monotonic() + CHECK < deadline:
        await asyncio.sleep(CHECK)
        rows.append(await measure("during", started))
    await asyncio.gather(*tasks, return_exceptions=True)
    # Every client has closed: what the gateway still counts is leaked.
    await asyncio.sleep(5)
    rows.append(await measure("end", started))
    end = rows[-1]
    ok = end["sseClientsGauge"] == 0 and end["canaryLatencyMs"] is not None
    print(json.dumps({"verdict": "ok" if ok else "FAILED", "fdsStart": rows[0]["fds"], "fdsEnd": end["fds"],
                      "heapStartMiB": rows[0]["heapAfterGcMiB"], "heapEndMiB": end["heapAfterGcMiB"]}), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
