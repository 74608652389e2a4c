#!/usr/bin/env python3
"""Writes a one-layer container image as a docker-archive tar (the `docker save` format, which
`ctr images import` reads), from files on this machine. No registry, no daemon.

    mkimage.py --out pilot.tar --ref localhost/istio/pilot:TAG \
        --entrypoint '["/usr/local/bin/pilot-discovery"]' --user 1337:1337 \
        --file /usr/local/bin/pilot-discovery=/path/to/pilot-discovery:0755 \
        --text /etc/passwd=@passwd.txt --dir /tmp:1777 --symlink /sbin/iptables=xtables-nft-multi

Entries:
  --file DST=SRC[:MODE]     a regular file copied from SRC (MODE octal; default: SRC's mode)
  --text DST=@SRC[:MODE]    same as --file, mode 0644 by default (for small text files)
  --tree DST=SRC            a directory copied recursively (files, directories, symlinks as they are)
  --dir  DST[:MODE]         an empty directory (default 0755)
  --symlink DST=TARGET      a symbolic link
Parent directories are added with mode 0755. Every entry is owned by 0:0 and dated at the epoch
the image is stamped with (--created, default 1970-01-01), so the same inputs give the same bytes.

Image config: --entrypoint/--cmd (JSON lists), --env K=V (repeatable), --user, --workdir,
--label K=V (repeatable). The tar holds manifest.json, the config blob and the layer.
"""

import argparse
import hashlib
import io
import json
import os
import stat
import sys
import tarfile


def fail(msg):
    print(f"mkimage: {msg}", file=sys.stderr)
    sys.exit(1)


def split_mode(spec, default):
    # "X=SRC:0755" -> ("X=SRC", 0o755); a trailing ":digits" is a mode.
    head, sep, tail = spec.rpartition(":")
    if sep and tail and all(c in "01234567" for c in tail):
        return head, int(tail, 8)
    return spec, default


class Layer:
    def __init__(self, mtime):
        self.mtime = mtime
        self.entries = {}  # path (no leading /) -> (TarInfo, bytes or None)

    def _info(self, path, kind, mode):
        ti = tarfile.TarInfo(path)
        ti.type = kind
        ti.mode = mode
        ti.uid = ti.gid = 0
        ti.uname = ti.gname = ""
        ti.mtime = self.mtime
        return ti

    def _parents(self, path):
        parts = path.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            p = "/".join(parts[:i])
            if p not in self.entries:
                self.entries[p] = (self._info(p, tarfile.DIRTYPE, 0o755), None)

    @staticmethod
    def _norm(dst):
        p = os.path.normpath("/" + dst).lstrip("/")
        if not p or p.startswith(".."):
            fail(f"bad path in image: {dst!r}")
        return p

    def add_bytes(self, dst, data, mode):
        p = self._norm(dst)
        self._parents(p)
        ti = self._info(p, tarfile.REGTYPE, mode)
        ti.size = len(data)
        self.entries[p] = (ti, data)

    def add_file(self, dst, src, mode=None):
        try:
            with open(src, "rb") as f:
                data = f.read()
            st = os.stat(src)
        except OSError as e:
            fail(f"cannot read {src}: {e}")
        self.add_bytes(dst, data, stat.S_IMODE(st.st_mode) if mode is None else mode)

    def add_dir(self, dst, mode):
        p = self._norm(dst)
        self._parents(p)
        self.entries[p] = (self._info(p, tarfile.DIRTYPE, mode), None)

    def add_symlink(self, dst, target):
        p = self._norm(dst)
        self._parents(p)
        ti = self._info(p, tarfile.SYMTYPE, 0o777)
        ti.linkname = target
        self.entries[p] = (ti, None)

    def add_tree(self, dst, src):
        if not os.path.isdir(src):
            fail(f"not a directory: {src}")
        self.add_dir(dst, stat.S_IMODE(os.stat(src).st_mode))
        for root, dirs, files in os.walk(src):
            dirs.sort()
            rel = os.path.relpath(root, src)
            base = dst if rel == "." else os.path.join(dst, rel)
            for name in sorted(dirs + files):
                s = os.path.join(root, name)
                d = os.path.join(base, name)
                if os.path.islink(s):
                    self.add_symlink(d, os.readlink(s))
                elif os.path.isdir(s):
                    self.add_dir(d, stat.S_IMODE(os.stat(s).st_mode))
                elif os.path.isfile(s):
                    self.add_file(d, s)

    def tar(self):
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
            for p in sorted(self.entries):
                ti, data = self.entries[p]
                t.addfile(ti, io.BytesIO(data) if data is not None else None)
        return buf.getvalue()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--ref", required=True, help="image name with tag, e.g. localhost/istio/pilot:TAG")
    ap.add_argument("--entrypoint")
    ap.add_argument("--cmd")
    ap.add_argument("--env", action="append", default=[])
    ap.add_argument("--user")
    ap.add_argument("--workdir")
    ap.add_argument("--label", action="append", default=[])
    ap.add_argument("--created", default="1970-01-01T00:00:00Z")
    ap.add_argument("--file", action="append", default=[])
    ap.add_argument("--text", action="append", default=[])
    ap.add_argument("--tree", action="append", default=[])
    ap.add_argument("--dir", action="append", default=[])
    ap.add_argument("--symlink", action="append", default=[])
    a = ap.parse_args()

    layer = Layer(mtime=0)
    for spec in a.dir:
        path, mode = split_mode(spec, 0o755)
        layer.add_dir(path, mode)
    for spec in a.tree:
        dst, _, src = spec.partition("=")
        layer.add_tree(dst, src)
    for spec in a.file:
        spec, mode = split_mode(spec, None)
        dst, _, src = spec.partition("=")
        if not src:
            fail(f"--file needs DST=SRC: {spec!r}")
        layer.add_file(dst, src, mode)
    for spec in a.text:
        spec, mode = split_mode(spec, 0o644)
        dst, _, src = spec.partition("=")
        if not src.startswith("@"):
            fail(f"--text needs DST=@SRC: {spec!r}")
        layer.add_file(dst, src[1:], mode)
    for spec in a.symlink:
        dst, _, target = spec.partition("=")
        if not target:
            fail(f"--symlink needs DST=TARGET: {spec!r}")
        layer.add_symlink(dst, target)

    layer_tar = layer.tar()
    diff_id = "sha256:" + hashlib.sha256(layer_tar).hexdigest()

    cfg = {}
    if a.entrypoint:
        cfg["Entrypoint"] = json.loads(a.entrypoint)
    if a.cmd:
        cfg["Cmd"] = json.loads(a.cmd)
    if a.env:
        cfg["Env"] = a.env
    if a.user:
        cfg["User"] = a.user
    if a.workdir:
        cfg["WorkingDir"] = a.workdir
    if a.label:
        cfg["Labels"] = dict(kv.split("=", 1) for kv in a.label)
    config = {
        "architecture": "amd64",
        "os": "linux",
        "created": a.created,
        "config": cfg,
        "rootfs": {"type": "layers", "diff_ids": [diff_id]},
        "history": [{"created": a.created, "created_by": "bosun scripts/mkimage.py"}],
    }
    config_bytes = json.dumps(config, sort_keys=True, separators=(",", ":")).encode()
    config_name = hashlib.sha256(config_bytes).hexdigest() + ".json"
    layer_name = diff_id[len("sha256:"):] + "/layer.tar"
    manifest = [{"Config": config_name, "RepoTags": [a.ref], "Layers": [layer_name]}]

    tmp = a.out + ".tmp"
    with tarfile.open(tmp, mode="w", format=tarfile.PAX_FORMAT) as t:
        for name, data in (
            (config_name, config_bytes),
            (layer_name, layer_tar),
            ("manifest.json", json.dumps(manifest, separators=(",", ":")).encode()),
        ):
            ti = tarfile.TarInfo(name)
            ti.size = len(data)
            ti.mode = 0o644
            t.addfile(ti, io.BytesIO(data))
    os.replace(tmp, a.out)


if __name__ == "__main__":
    main()
