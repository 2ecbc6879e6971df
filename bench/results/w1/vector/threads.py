"""CPU by thread group of a process between two snapshots: python threads.py snap PID > a; ...; python threads.py diff a b VIEWS"""
import os, re, sys, json, collections

def snap(pid: str) -> dict:
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            comm = open(f"/proc/{pid}/task/{tid}/comm").read().strip()
            fields = open(f"/proc/{pid}/task/{tid}/stat").read().rsplit(")", 1)[1].split()
            out[tid] = (comm, int(fields[11]) + int(fields[12]))
        except OSError:
            pass
    return out

def group(name: str) -> str:
    return re.sub(r"[-_ #]?\d+$", "", re.sub(r"\d+", "N", name))

if sys.argv[1] == "snap":
    print(json.dumps(snap(sys.argv[2])))
else:
    a, b = json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
    views = float(sys.argv[4])
    by = collections.Counter()
    for tid, (comm, ticks) in b.items():
        by[group(comm)] += ticks - a.get(tid, (comm, 0))[1]
    total = sum(by.values())
    print(f"total {total * 10 / views:.3f} ms/view")
    for name, ticks in by.most_common(14):
        print(f"  {name:24s} {ticks * 10 / views:.3f} ms/view")
