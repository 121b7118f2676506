"""Shared by gemm_probes.py and ring_probes.py: a %globaltimer stamp in PTX
and the probe build's output.

A probe appends the time to its row of a module-level u64 array SYMBOL: per
CTA (linear over the grid: x + X * (y + Y * z), clamped to NCTA - 1) and
event, a counter followed by MAXJ stamps (ns), one per time the event fired
in that CTA (later ones overwrite the last slot). Only thread `tid` of the
CTA stamps.
"""


class Probes:
    def __init__(self, symbol, label, nev, maxj, ncta):
        self.symbol, self.label = symbol, label
        self.nev, self.maxj, self.ncta = nev, maxj, ncta
        self.inserts = {}  # line index -> list of (before: bool, text)
        self.count = 0

    def snippet(self, ev, tid):
        row = self.nev * (self.maxj + 1) * 8
        skip = f"PROBE{self.count}"
        return f"""	// tilec {self.label} probe {ev}
	{{
	.reg .pred %tp;
	.reg .b32 %tq<6>;
	.reg .b64 %tt<4>;
	mov.u32 %tq0, %tid.x;
	setp.ne.u32 %tp, %tq0, {tid};
	@%tp bra {skip};
	mov.u64 %tt0, %globaltimer;
	mov.u32 %tq1, %ctaid.z;
	mov.u32 %tq2, %nctaid.y;
	mov.u32 %tq3, %ctaid.y;
	mad.lo.u32 %tq1, %tq1, %tq2, %tq3;
	mov.u32 %tq2, %nctaid.x;
	mov.u32 %tq3, %ctaid.x;
	mad.lo.u32 %tq1, %tq1, %tq2, %tq3;
	min.u32 %tq1, %tq1, {self.ncta - 1};
	mul.wide.u32 %tt1, %tq1, {row};
	mov.u64 %tt2, {self.symbol};
	add.u64 %tt2, %tt2, %tt1;
	add.u64 %tt2, %tt2, {ev * (self.maxj + 1) * 8};
	atom.global.add.u64 %tt3, [%tt2], 1;
	min.u64 %tt3, %tt3, {self.maxj - 1};
	shl.b64 %tt3, %tt3, 3;
	add.u64 %tt3, %tt3, %tt2;
	st.global.u64 [%tt3+8], %tt0;
{skip}:
	}}
"""

    def at(self, i, ev, tid, before):
        """A stamp of event `ev` by thread `tid` before (or after) line i."""
        self.inserts.setdefault(i, []).append((before, self.snippet(ev, tid)))
        self.count += 1

    def write(self, lines, first_entry, dst):
        """The PTX with the stamps and the array, declared before the first entry."""
        out = []
        for i, l in enumerate(lines):
            if i == first_entry:
                size = self.ncta * self.nev * (self.maxj + 1)
                out.append(f".global .align 8 .u64 {self.symbol}[{size}];")
                out.append("")
            for before, text in self.inserts.get(i, []):
                if before:
                    out.append(text.rstrip("\n"))
            out.append(l)
            for before, text in self.inserts.get(i, []):
                if not before:
                    out.append(text.rstrip("\n"))
        open(dst, "w").write("\n".join(out))
