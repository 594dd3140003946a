#!/usr/bin/env python3
"""fdstore.py SOCK ARGV... -- a stand-in for systemd's notify socket and
file descriptor store, for the integration tests (no systemd needed).

Binds the datagram socket SOCK (NOTIFY_SOCKET), starts ARGV with it and
with the fds it holds (LISTEN_FDS, LISTEN_FDNAMES, LISTEN_PID: as systemd
passes its store), keeps any fd sent with FDSTORE=1 under its FDNAME
(from anyone: a root ExecStop sends in the main process's name), drops it
on FDSTOREREMOVE=1.  Driven by files the test creates:

  SOCK.stop   SIGTERM the daemon, wait for it to exit
  SOCK.start  start it again with the stored fds, wait for READY=1
  SOCK.quit   stop it if it runs, and exit

Prints one line per event on stdout: "ready PID", "stored NAME",
"removed NAME", "exited PID STATUS holding NAME,...", "dead PID STATUS"
(the daemon went without being asked: a kill).
"""
import array
import fcntl
import os
import signal
import socket
import subprocess
import sys
import time

sock_path, argv = sys.argv[1], sys.argv[2:]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sock_path)
os.chmod(sock_path, 0o666)
store = {}      # name -> fd, in the order stored
proc = None


def say(*a):
    print(*a, flush=True)


def handle(msg, anc):
    fds = array.array("i")
    for level, typ, data in anc:
        if level == socket.SOL_SOCKET and typ == socket.SCM_RIGHTS:
            fds.frombytes(data[: len(data) - len(data) % fds.itemsize])
    fields = dict(l.split("=", 1) for l in msg.decode(errors="replace").splitlines() if "=" in l)
    if fields.get("FDSTORE") == "1" and fds:
        name = fields.get("FDNAME", "stored")
        if name in store:
            os.close(store.pop(name))
        store[name] = fds[0]
        for fd in fds[1:]:
            os.close(fd)
        say("stored", name)
    elif fds:
        for fd in fds:
            os.close(fd)
    if fields.get("FDSTOREREMOVE") == "1":
        name = fields.get("FDNAME")
        if name in store:
            os.close(store.pop(name))
            say("removed", name)
    return fields


def receive(timeout):
    """One message within timeout, handled; its fields, or None."""
    s.settimeout(timeout)
    try:
        msg, anc, _, _ = s.recvmsg(4096, socket.CMSG_SPACE(16 * 4))
    except (socket.timeout, BlockingIOError):
        return None
    return handle(msg, anc)


def start():
    global proc
    names = list(store)
    fds = [store[n] for n in names]
    env = dict(os.environ, NOTIFY_SOCKET=sock_path)
    env.pop("LISTEN_FDS", None)
    if fds:
        env["LISTEN_FDS"] = str(len(fds))
        env["LISTEN_FDNAMES"] = ":".join(names)

    def child():
        # the stored fds at 3, 4, ...: dup the lot above them first
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 100) for fd in fds]
        for i, fd in enumerate(high):
            os.dup2(fd, 3 + i)
    # LISTEN_PID must be the daemon's own pid: the shell sets it and execs
    proc = subprocess.Popen(["sh", "-c", 'LISTEN_PID=$$ exec "$0" "$@"'] + argv, env=env,
                            pass_fds=[3 + i for i in range(len(fds))], preexec_fn=child)
    end = time.monotonic() + 15
    while time.monotonic() < end:
        f = receive(0.2)
        if f is not None and f.get("READY") == "1":
            say("ready", proc.pid)
            return
        if proc.poll() is not None:
            break
    say("dead", proc.pid, proc.poll())
    proc = None


def stop():
    global proc
    if proc is None:
        return
    proc.send_signal(signal.SIGTERM)
    while proc.poll() is None:
        receive(0.1)
    while receive(0.05) is not None:    # what came with the last datagrams
        pass
    say("exited", proc.pid, proc.returncode, "holding", ",".join(store))
    proc = None


def take(path):
    try:
        os.unlink(path)
        return True
    except FileNotFoundError:
        return False


start()
while True:
    if take(sock_path + ".stop"):
        stop()
    if take(sock_path + ".start"):
        start()
    if take(sock_path + ".quit"):
        stop()
        break
    receive(0.05)
    if proc is not None and proc.poll() is not None:
        while receive(0.05) is not None:
            pass
        say("dead", proc.pid, proc.returncode, "holding", ",".join(store))
        proc = None
