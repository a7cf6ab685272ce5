#!/usr/bin/env python3
"""A minimal Agent Client Protocol client for the e2e suite: `acp-client.py <agent argv…>`.

Starts the agent (e.g. `node codebuddy --acp`), initializes without client capabilities
(no file system, no terminal: the agent runs its tools itself), opens a session in the
current directory, sends one prompt, answers permission requests with the first option
that allows, and returns when the prompt ends and the agent's background tasks had a moment
to finish. The CodeBuddy CLI runs background commands only in this mode (it refuses them in
`-p` and stream-json mode). Messages are logged to $ACP_LOG when set. Exit 0 when the prompt
ended, 1 otherwise.
"""
import json
import os
import subprocess
import sys
import threading
import time

PROMPT = "run the commands"


def main():
    agent = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    log = open(os.environ["ACP_LOG"], "w") if os.environ.get("ACP_LOG") else None
    answers, lock, next_id = {}, threading.Lock(), [0]

    def send(msg):
        line = json.dumps(msg)
        if log:
            log.write(">> " + line + "\n")
            log.flush()
        agent.stdin.write(line + "\n")
        agent.stdin.flush()

    def call(method, params, timeout):
        with lock:
            next_id[0] += 1
            i = next_id[0]
            answers[i] = [threading.Event(), None]
        send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        if not answers[i][0].wait(timeout):
            sys.exit(f"acp-client: no answer to {method} in {timeout} s")
        msg = answers[i][1]
        if "error" in msg:
            sys.exit(f"acp-client: {method}: {msg['error']}")
        return msg["result"]

    def read():
        for line in agent.stdout:
            if log:
                log.write("<< " + line)
                log.flush()
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if "id" in msg and ("result" in msg or "error" in msg):
                slot = answers.get(msg["id"])
                if slot:
                    slot[1] = msg
                    slot[0].set()
            elif msg.get("method") == "session/request_permission" and "id" in msg:
                options = msg["params"].get("options", [])
                allow = [o["optionId"] for o in options if o.get("kind", "").startswith("allow")]
                pick = (allow or [o["optionId"] for o in options] or ["allow"])[0]
                send({"jsonrpc": "2.0", "id": msg["id"], "result": {"outcome": {"outcome": "selected", "optionId": pick}}})
            elif "method" in msg and "id" in msg:
                send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "not supported by the e2e client"}})

    threading.Thread(target=read, daemon=True).start()
    try:
        call("initialize", {"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": False, "writeTextFile": False}, "terminal": False}}, 60)
        session = call("session/new", {"cwd": os.getcwd(), "mcpServers": []}, 60)["sessionId"]
        call("session/prompt", {"sessionId": session, "prompt": [{"type": "text", "text": PROMPT}]}, 170)
        time.sleep(float(os.environ.get("ACP_LINGER_S", "2")))
        return 0
    finally:
        agent.terminate()
        try:
            agent.wait(10)
        except subprocess.TimeoutExpired:
            agent.kill()


if __name__ == "__main__":
    sys.exit(main())
