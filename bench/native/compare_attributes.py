#!/usr/bin/env python3
"""Compares the device predatar reports with the H100 it models: tests/programs/device_attributes'
output under predatar (its .expected, which the feature-program test keeps equal to predatar's output)
against what the same program printed on an H100 (h100-device-attributes.txt).

usage: compare_attributes.py [--check]
Prints each line that differs. With --check, exits 1 when a line differs that is not one of the
deliberate differences below, or when one of those no longer differs (then this list is stale).
"""
import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent

# Attributes where predatar answers otherwise on purpose (src/cudart/runtime/DeviceProperties.cpp).
DELIBERATE = {
    "PciDeviceId": "the machine's PCI slot, not a property of the GPU",
    "ClusterLaunch": "thread block clusters are refused by name",
    "SparseCudaArraySupported": "sparse CUDA arrays are refused by name",
    "DeferredMappingCudaArraySupported": "no deferred mapping of CUDA arrays",
    "TimelineSemaphoreInteropSupported": "no external semaphores (graphics interop)",
    "GPUDirectRDMASupported": "no GPUDirect RDMA",
    "GPUDirectRDMAFlushWritesOptions": "no GPUDirect RDMA",
    "GPUDirectRDMAWritesOrdering": "no GPUDirect RDMA",
    "MemoryPoolSupportedHandleTypes": "memory pools cannot be exported to another process",
    "IpcEventSupport": "one process: no IPC",
    "HostNumaMemoryPoolsSupported": "memory pools are of device memory",
    "HostMemoryPoolsSupported": "memory pools are of device memory",
}


def lines(path):
    out = {}
    for line in path.read_text().splitlines():
        if ": " in line and not line.startswith(("=", "predatar:")):
            name, value = line.split(": ", 1)
            out[name] = value
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    native = lines(HERE / "h100-device-attributes.txt")
    predatar = lines(REPO / "tests" / "programs" / "device_attributes.expected")
    bad = 0
    for name in sorted(set(native) | set(predatar)):
        a, b = predatar.get(name, "(missing)"), native.get(name, "(missing)")
        if a == b:
            if name in DELIBERATE:
                print(f"stale: {name} is listed as a deliberate difference but predatar now answers {a} as the H100")
                bad += 1
            continue
        reason = DELIBERATE.get(name)
        print(f"{name}: predatar {a}, H100 {b}" + (f" (deliberate: {reason})" if reason else " (NOT EXPLAINED)"))
        bad += reason is None
    same = sum(1 for n in native if predatar.get(n) == native[n])
    print(f"{same} of {len(native)} lines as on the H100; {len(DELIBERATE)} differ on purpose")
    return 1 if args.check and bad else 0


if __name__ == "__main__":
    sys.exit(main())
