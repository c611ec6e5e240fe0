"""Provenance."""

import ctypes
import os
import platform
import re
import socket
import subprocess
import time

from peerslib.common import ROOT


def gpu_attribute(attr, ordinal=None):
    """cuDeviceGetAttribute through the driver library, or 0."""
    info = _cuda_driver()
    if not info:
        return 0
    return info["attrs"].get(attr, 0)


_DRIVER = {}


def _cuda_driver():
    if "info" in _DRIVER:
        return _DRIVER["info"]
    info = None
    try:
        lib = ctypes.CDLL("libcuda.so.1")
        if lib.cuInit(0) == 0:
            ordinal = 0
            dev = ctypes.c_int()
            if lib.cuDeviceGet(ctypes.byref(dev), ordinal) == 0:
                name = ctypes.create_string_buffer(256)
                lib.cuDeviceGetName(name, 256, dev)
                ver = ctypes.c_int()
                lib.cuDriverGetVersion(ctypes.byref(ver))
                mem = ctypes.c_size_t()
                lib.cuDeviceTotalMem_v2(ctypes.byref(mem), dev)
                attrs = {}
                for a in (13, 16, 32, 33, 34, 36, 37, 38, 50, 75, 76):
                    v = ctypes.c_int()
                    if lib.cuDeviceGetAttribute(ctypes.byref(v), a, dev) == 0:
                        attrs[a] = v.value
                info = {"name": name.value.decode("utf-8", "replace"), "driver": ver.value,
                        "memory": mem.value, "attrs": attrs}
    except (OSError, AttributeError):
        info = None
    _DRIVER["info"] = info
    return info


def runtime_version(torch_mod, cupy_mod):
    """The CUDA runtime the library was built with, as "13.0"."""
    v = getattr(getattr(torch_mod, "version", None), "cuda", None)
    if v:
        return v
    try:
        r = cupy_mod.cuda.runtime.runtimeGetVersion()
        return "%d.%d" % (r // 1000, r % 1000 // 10)
    except Exception:
        return ""


def gpu_json(torch_mod, cupy_mod):
    """The GPU block of provenance, with the fields permbench writes."""
    d = _cuda_driver()
    if d:
        a = d["attrs"]
        mem_khz, bus = a.get(36, 0), a.get(37, 0)
        return {"present": True, "name": d["name"], "sms": a.get(16, 0),
                "compute_capability": "%d.%d" % (a.get(75, 0), a.get(76, 0)),
                "memory_bytes": d["memory"], "l2_bytes": a.get(38, 0),
                "sm_clock_mhz": a.get(13, 0) // 1000, "memory_clock_mhz": mem_khz // 1000,
                "memory_bus_bits": bus, "peak_bandwidth_gbps": 2.0 * mem_khz * 1e3 * bus / 8 / 1e9,
                "ecc": bool(a.get(32, 0)),
                "pci_bus_id": "%04x:%02x:%02x.0" % (a.get(50, 0), a.get(33, 0), a.get(34, 0)),
                "driver_cuda_version": "%d.%d" % (d["driver"] // 1000, d["driver"] % 1000 // 10),
                "runtime_version": runtime_version(torch_mod, cupy_mod)}
    if torch_mod is not None:
        p = torch_mod.cuda.get_device_properties(torch_mod.cuda.current_device())
        return {"present": True, "name": p.name, "sms": p.multi_processor_count,
                "compute_capability": "%d.%d" % (p.major, p.minor), "memory_bytes": p.total_memory,
                "l2_bytes": getattr(p, "L2_cache_size", 0),
                "runtime_version": runtime_version(torch_mod, cupy_mod)}
    return {"present": False, "reason": "libcuda.so.1 could not be read"}


def host_json():
    model, mem = "", 0
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    mem = int(line.split()[1]) * 1024
    except OSError:
        pass
    u = platform.uname()
    return {"cpu_model": model or u.processor or "unknown", "logical_cpus": os.cpu_count() or 0,
            "memory_bytes": mem, "os": "%s %s %s" % (u.system, u.release, u.machine),
            "hostname": socket.gethostname()}


def git_json():
    """The commit of the tree this script is in: git-archive's stamp, else git."""
    try:
        with open(os.path.join(ROOT, "cmake", "git-archive.txt")) as f:
            stamp = f.read().strip()
        if re.match(r"^[0-9a-f]{40}$", stamp):
            return {"commit": stamp, "dirty": "no", "source": "git-archive"}
    except OSError:
        pass
    try:
        commit = subprocess.check_output(["git", "-C", ROOT, "rev-parse", "HEAD"],
                                         stderr=subprocess.DEVNULL).decode().strip()
        dirty = subprocess.check_output(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                                        stderr=subprocess.DEVNULL).decode().strip()
        return {"commit": commit, "dirty": "yes" if dirty else "no", "source": "git"}
    except (OSError, subprocess.CalledProcessError):
        return {"commit": "unknown", "dirty": "unknown", "source": "none"}


def utc_now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
