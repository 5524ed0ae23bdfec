# to-fen's rows of a batch (included by _core.pyx; pgntools/_c/fen_rows.h): the position table's
# columns as buffers, for its Parquet writer (pgntools.parquet.fen_rows_file) without Arrow.

cdef FenStrings _fen_strings(column, size_t count, str name) except *:
    """A batch string column's buffers, checked to hold ``count`` strings."""
    cdef const unsigned char[:] offsets = column[0]
    cdef const unsigned char[:] data = column[1]
    cdef FenStrings s
    if <size_t>offsets.shape[0] < 4 * (count + 1):
        raise ValueError(f"fen_rows: {name} holds fewer than {count} strings")
    s.offsets = <const int32_t *>&offsets[0]
    s.data = <const char *>_bytes_ptr(data)
    if s.data == NULL:
        s.data = ""
    if <size_t>(s.offsets[count]) > <size_t>data.shape[0]:
        raise ValueError(f"fen_rows: {name}'s offsets run past its data")
    return s


def final_fen_lines(raw, bint include_invalid, int invalid_status):
    """to-fen's default output for one batch (``raw``: GameBatch.raw): the final FEN of each
    replayed game (of the invalid ones only with ``include_invalid``), one a line, as bytes: one
    pass over the batch's buffers, no string per game."""
    cdef size_t n = raw["n_games"], g, k, total = 0
    cdef const unsigned char[:] status = raw["status"]
    cdef const unsigned char[:] replayed = raw["replayed"]
    if n == 0:
        return b""
    if <size_t>status.shape[0] < n or <size_t>replayed.shape[0] < n:
        raise ValueError("final_fen_lines: a per-game column holds fewer than n_games values")
    cdef FenStrings fen = _fen_strings(raw["final_fen"], n, "final_fen")
    for g in range(n):
        if replayed[g] and (status[g] != invalid_status or include_invalid):
            total += <size_t>(fen.offsets[g + 1] - fen.offsets[g]) + 1
    out = PyBytes_FromStringAndSize(NULL, total)
    cdef char *o = <char *>out
    for g in range(n):
        if replayed[g] and (status[g] != invalid_status or include_invalid):
            k = <size_t>(fen.offsets[g + 1] - fen.offsets[g])
            memcpy(o, fen.data + fen.offsets[g], k)
            o[k] = 10  # (a line end)
            o += k + 1
    return out


def string_lines(column):
    """A string column (offsets, data) as text: each string and a line end, as bytes (no string
    a row: to-fen's FEN lines of fen_rows)."""
    cdef const unsigned char[:] offsets = column[0]
    cdef const unsigned char[:] data = column[1]
    cdef size_t n = offsets.shape[0] // 4 - 1 if offsets.shape[0] >= 4 else 0, i, k
    if n == 0:
        return b""
    cdef const int32_t *o = <const int32_t *>&offsets[0]
    if <size_t>o[n] > <size_t>data.shape[0]:
        raise ValueError("string_lines: the offsets run past the data")
    out = PyBytes_FromStringAndSize(NULL, <size_t>(o[n] - o[0]) + n)
    cdef char *w = <char *>out
    cdef const char *d = <const char *>_bytes_ptr(data)
    for i in range(n):
        k = <size_t>(o[i + 1] - o[i])
        if k:
            memcpy(w, d + o[i], k)
        w[k] = 10
        w += k + 1
    return out


def fen_rows(raw, ids, int64_t first_game, bint every_ply, plies, bint include_invalid, int invalid_status,
             window=(0, -1)):
    """to-fen's rows of one batch (``raw``: GameBatch.raw; ``ids``: a view's game ids, or None):
    (rows, game_id int64 bytes, ply int16 bytes, (san offsets, data), (fen offsets, data)). With
    ``every_ply`` the start and each mainline ply (only ``plies``, ascending, when not None), else
    each game's final position; of the replayed games, the invalid ones only with ``include_invalid``.
    ``window``: with ``every_ply``, only the plies [first, last] (last -1: to the game's end)."""
    from array import array

    cdef FenRowsInput inp
    cdef size_t g
    memset(&inp, 0, sizeof(inp))
    cdef size_t n = raw["n_games"]
    cdef const unsigned char[:] status = raw["status"]
    cdef const unsigned char[:] replayed = raw["replayed"]
    cdef const unsigned char[:] ply_count = raw["ply_count"]
    cdef const unsigned char[:] move_start = raw["move_start"]
    cdef const unsigned char[:] ply = raw["ply"]
    cdef const unsigned char[:] id_view = memoryview(array("q", ids)).cast("B") if ids is not None else None
    cdef const unsigned char[:] plies_view = memoryview(array("i", plies)).cast("B") if plies is not None else None
    if <size_t>status.shape[0] < n or <size_t>replayed.shape[0] < n or <size_t>ply_count.shape[0] < 4 * n \
            or <size_t>move_start.shape[0] < 4 * n:
        raise ValueError("fen_rows: a per-game column holds fewer than n_games values")
    if id_view is not None and <size_t>id_view.shape[0] != 8 * n:
        raise ValueError("fen_rows: one id a game")
    inp.n_games, inp.n_moves = n, ply.shape[0] // 2
    inp.status, inp.replayed = _bytes_ptr(status), _bytes_ptr(replayed)
    inp.ply_count, inp.move_start = <const int32_t *>_bytes_ptr(ply_count), <const int32_t *>_bytes_ptr(move_start)
    inp.ply = <const int16_t *>_bytes_ptr(ply)
    inp.ids = <const int64_t *>_bytes_ptr(id_view)
    inp.first_game, inp.every_ply, inp.include_invalid = first_game, every_ply, include_invalid
    inp.invalid_status = invalid_status
    inp.first_ply, inp.last_ply = window
    if plies_view is not None:
        inp.plies, inp.n_plies = <const int32_t *>_bytes_ptr(plies_view), plies_view.shape[0] // 4
        if inp.n_plies == 0:
            raise ValueError("fen_rows: no plies (None: every ply)")
    for g in range(n):  # (the C loops read each game's moves from its start up to the next one's)
        if inp.move_start[g] < 0 or <size_t>inp.move_start[g] > inp.n_moves or \
                (g and inp.move_start[g] < inp.move_start[g - 1]):
            raise ValueError("fen_rows: move_start is not ascending within the moves")
    if inp.n_moves:
        inp.san = _fen_strings(raw["san"], inp.n_moves, "san")
    if every_ply:
        inp.start_fen = _fen_strings(raw["start_fen"], n, "start_fen")
        if inp.n_moves:
            inp.fen = _fen_strings(raw["fen"], inp.n_moves, "fen")
    else:
        inp.final_fen = _fen_strings(raw["final_fen"], n, "final_fen")
    cdef FenRowsSize size
    with nogil:
        size = fen_rows_size(&inp)
    if size.san_bytes > 0x7fffffff or size.fen_bytes > 0x7fffffff:
        raise ValueError("fen_rows: a batch's strings exceed 2 GiB")
    game_id = PyBytes_FromStringAndSize(NULL, 8 * size.rows)
    plys = PyBytes_FromStringAndSize(NULL, 2 * size.rows)
    san_offsets = PyBytes_FromStringAndSize(NULL, 4 * (size.rows + 1))
    san_data = PyBytes_FromStringAndSize(NULL, size.san_bytes)
    fen_offsets = PyBytes_FromStringAndSize(NULL, 4 * (size.rows + 1))
    fen_data = PyBytes_FromStringAndSize(NULL, size.fen_bytes)
    cdef int64_t *g_out = <int64_t *><char *>game_id
    cdef int16_t *p_out = <int16_t *><char *>plys
    cdef int32_t *so = <int32_t *><char *>san_offsets
    cdef char *sd = <char *>san_data
    cdef int32_t *fo = <int32_t *><char *>fen_offsets
    cdef char *fd = <char *>fen_data
    with nogil:
        fen_rows_fill(&inp, g_out, p_out, so, sd, fo, fd)
    return size.rows, game_id, plys, (san_offsets, san_data), (fen_offsets, fen_data)


cdef inline char *_put(char *w, const char *s, size_t n) noexcept nogil:
    memcpy(w, s, n)
    return w + n


cdef inline char *_put_int(char *w, int64_t v) noexcept nogil:
    cdef char tmp[24]
    cdef int k = 0
    cdef bint negative = v < 0
    cdef uint64_t u = <uint64_t>(-v) if negative else <uint64_t>v
    while True:
        tmp[k] = <char>(48 + u % 10)
        k += 1
        u //= 10
        if u == 0:
            break
    if negative:
        w[0] = 45
        w += 1
    while k > 0:
        k -= 1
        w[0] = tmp[k]
        w += 1
    return w


FEN_ROW_FORMATS = {"csv": 0, "jsonl": 1, "epd": 2}


def fen_row_text(bytes game_id, bytes ply, san, fen, str fmt):
    """to-fen's rows (fen_rows' columns) as CSV lines (strings quoted, " doubled), JSON Lines
    ({"game_id": .., "ply": .., "san": "..", "fen": ".."}: SAN and FEN are ASCII without quotes
    or backslashes, written as they are) or EPD (the FEN's first four fields, hmvc, fmvn, id
    "game:ply"), as bytes: one pass, no string a row."""
    cdef int kind = FEN_ROW_FORMATS[fmt]
    cdef size_t n = len(ply) // 2, i, k, room = 0, spaces
    cdef const int64_t *ids = <const int64_t *><const char *>game_id
    cdef const int16_t *plies = <const int16_t *><const char *>ply
    cdef FenStrings s = _fen_strings(san, n, "san")
    cdef FenStrings f = _fen_strings(fen, n, "fen")
    if n == 0:
        return b""
    room = 96 * n + 2 * <size_t>(s.offsets[n] - s.offsets[0]) + <size_t>(f.offsets[n] - f.offsets[0])
    out = PyBytes_FromStringAndSize(NULL, room)
    cdef char *start = <char *>out
    cdef char *w = start
    cdef const char *t
    cdef size_t len_s, len_f
    with nogil:
        for i in range(n):
            len_s = <size_t>(s.offsets[i + 1] - s.offsets[i])
            len_f = <size_t>(f.offsets[i + 1] - f.offsets[i])
            t = s.data + s.offsets[i]
            if kind == 0:
                w = _put_int(w, ids[i])
                w[0] = 44
                w = _put_int(w + 1, plies[i])
                w = _put(w, b',"', 2)
                for k in range(len_s):
                    if t[k] == 34:
                        w[0] = 34
                        w += 1
                    w[0] = t[k]
                    w += 1
                w = _put(w, b'","', 3)
                w = _put(w, f.data + f.offsets[i], len_f)
                w = _put(w, b'"\n', 2)
            elif kind == 1:
                w = _put(w, b'{"game_id": ', 12)
                w = _put_int(w, ids[i])
                w = _put(w, b', "ply": ', 9)
                w = _put_int(w, plies[i])
                w = _put(w, b', "san": "', 10)
                w = _put(w, t, len_s)
                w = _put(w, b'", "fen": "', 11)
                w = _put(w, f.data + f.offsets[i], len_f)
                w = _put(w, b'"}\n', 3)
            else:  # EPD: the four position fields, then hmvc and fmvn from the FEN's last two
                t = f.data + f.offsets[i]
                spaces = 0
                k = 0
                while k < len_f and spaces < 4:
                    spaces += t[k] == 32
                    k += 1
                w = _put(w, t, k)  # (with the space after the fourth field)
                w = _put(w, b"hmvc ", 5)
                while k < len_f and t[k] != 32:
                    w[0] = t[k]
                    w += 1
                    k += 1
                w = _put(w, b"; fmvn ", 7)
                k += 1
                if k < len_f:
                    w = _put(w, t + k, len_f - k)
                w = _put(w, b'; id "', 6)
                w = _put_int(w, ids[i])
                w[0] = 58
                w = _put_int(w + 1, plies[i])
                w = _put(w, b'";\n', 3)
    return out[:w - start]
