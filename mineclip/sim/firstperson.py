"""The crafter world seen from the player's eyes: a first-person renderer of the same world and the
same simulation as the top-down view, with a semantic map and a depth map beside every frame.

The world is drawn as Minecraft draws it: materials that block the way are textured cubes (stone
and ores as cliffs two tiles high, with the tunnels the world generator carves between them; trees
as a log trunk under a crown of leaves; a table as a block below the eye, a furnace one just above),
walkable materials and water and lava as textured ground, creatures, plants and arrows as upright
sprites that shrink with distance and hide behind blocks, a sky that darkens with crafter's
daylight, crafter's own night shading on top, and the inventory as a hotbar along the bottom.
Textures are crafter's own (the package's `assets/`).

The camera (every number is a module constant, and docs/sim.md says the same):

- **Eye height `EYE` = 0.75 tiles** at the centre of the player's tile, looking along the facing.
  A zombie (the player's size in crafter's art) is 0.94 tiles tall, so the eye sits where a
  person's does; a cow (0.62) is looked down on, a cliff (2) and a tree (1.8) rise above the eye.
- **Horizontal field of view 90 degrees** (`FOCAL` = 128 px for 256 columns): a tile at depth d is
  128/d pixels wide, so a creature 8 tiles ahead is 15 px wide and one a tile ahead 128 px (half
  the frame).
- **Pitch**: the camera looks level and its image centre is shifted up (a shift lens): the horizon
  is row `HORIZON` = 44 of the 144 world rows instead of row 72, as if looking ~12 degrees down,
  with vertical edges kept vertical. 44 is the lowest horizon that keeps the middle of the facing
  tile (the tile `do` acts on, at depth 1) on screen: its ground is row 44 + 128 * 0.75 / 1 = 140.
  A third of the world rows stay sky, which carries the time of day.
- **Far plane `MAX_DEPTH` = 16 tiles**, fog from `FOG_START` = 10 tiles (a creature 8 tiles ahead
  is drawn unfogged); beyond it the sky's horizon colour.

The projection is exact and simple: a point `forward` tiles ahead along the facing, `right` tiles
to the right and `height` tiles above the ground is at column 128 + 128 * right / forward and row
44 + 128 * (0.75 - height) / forward (`project`).

`render(world, player) -> FirstPersonFrame(frame, semantic, depth, tiles)`: frame uint8 [160, 256, 3];
semantic uint8 [160, 256] with the ids of `KINDS` (crafter's material ids, then creatures and
objects, then sky and hotbar); depth float32 [160, 256], tiles along the facing (inf for the sky,
0 for the hotbar); tiles int32 [160, 256], the world tile each pixel shows (x * 64 + y; -1 for the
sky, the hotbar and beyond the world). "A cow in view" and "how much of the view the cow fills" are
read from these maps (`visible_share`, `in_view`), never from a second geometry.

The world is ray cast column by column through the grid in numba (no display, no GPU; fastmath
off, so frames are the same bytes on every run), sprites are drawn after it with a depth test, the
night shading last. At night crafter's shading draws noise from the world's random state; this
renderer draws exactly the same numbers (one 256x144 array per frame, as the top-down frame does),
so an episode's simulation is the same whichever view records it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from crafter import constants
from crafter import engine as crafter_engine
from crafter import objects
from numba import njit

from .engine import FRAME_SIZE, TILE, _shared_textures
from .view import turn

FRAME_SHAPE = (FRAME_SIZE[1], FRAME_SIZE[0])  # (height, width), as the top-down frame
BAR_ROWS = TILE  # the hotbar: one row of 16-px slots, as crafter's inventory bar
WORLD_ROWS = FRAME_SHAPE[0] - BAR_ROWS
EYE = 0.75  # tiles above the ground
FOCAL = 128.0  # pixels: 90 degrees across 256 columns
HORIZON = 44  # row of the horizon in the world rows (72 would be a level look)
MAX_DEPTH = 16.0  # tiles
FOG_START = 10.0  # tiles
NEAR = 0.25  # sprites nearer than this (in tiles) are not drawn
FACE_SHADE = (0.8, 0.65)  # block faces crossed along x and along y are drawn darker than tops
DAY_SKY = ((104, 150, 235), (176, 206, 246))  # zenith, horizon
NIGHT_SKY = ((6, 8, 24), (24, 30, 58))
OPAQUE = 255  # sprite texels with full alpha are drawn; crafter's half-alpha shadows are not

OBJECT_KINDS = ("cow", "zombie", "skeleton", "plant", "arrow", "fence")
KINDS: tuple[str, ...] = ("outside", *constants.materials, *OBJECT_KINDS, "sky", "hotbar")
KIND_IDS = {kind: i for i, kind in enumerate(KINDS)}
SKY, HOTBAR = KIND_IDS["sky"], KIND_IDS["hotbar"]

# material -> (height in tiles, side texture below `split`, side texture above, split, top texture)
BLOCKS = {
    "outside": (0.0, "outside", "outside", 0.0, "outside"),  # beyond the world's 64x64 tiles
    "water": (0.0, "water", "water", 0.0, "water"),
    "grass": (0.0, "grass", "grass", 0.0, "grass"),
    "stone": (2.0, "stone", "stone", 0.0, "stone"),
    "path": (0.0, "path", "path", 0.0, "path"),
    "sand": (0.0, "sand", "sand", 0.0, "sand"),
    "tree": (1.8, "log", "leaves", 0.6, "leaves"),
    "lava": (0.0, "lava", "lava", 0.0, "lava"),
    "coal": (2.0, "coal", "coal", 0.0, "stone"),
    "iron": (2.0, "iron", "iron", 0.0, "stone"),
    "diamond": (2.0, "diamond", "diamond", 0.0, "stone"),
    "table": (0.6, "table", "table", 0.0, "wood"),
    "furnace": (1.0, "furnace", "furnace", 0.0, "stone"),
}
SPRITE_LIFT = {"arrow": 0.4}  # tiles above the ground (arrows fly; the rest stand)


@dataclass(frozen=True)
class FirstPersonFrame:
    """One first-person picture and what each of its pixels shows."""

    frame: np.ndarray  # uint8 [160, 256, 3]
    semantic: np.ndarray  # uint8 [160, 256], ids of KINDS
    depth: np.ndarray  # float32 [160, 256], tiles along the facing; inf: sky; 0: hotbar
    tiles: np.ndarray  # int32 [160, 256], the tile each pixel shows: x * world height + y; -1: none


@dataclass
class Atlas:
    """crafter's textures as numba-ready arrays: RGBA [T, 16, 16, 4] (row, column), their names, and
    each texture's opaque rows (the part of a sprite that stands on the ground)."""

    names: list[str]
    rgba: np.ndarray
    rows: np.ndarray  # int64 [T, 2]: first and last row with an opaque texel

    def index(self, name: str) -> int:
        return self.names.index(name)

    def copy(self) -> "Atlas":
        return Atlas(list(self.names), self.rgba.copy(), self.rows.copy())


@functools.lru_cache(1)
def _crafter_atlas() -> Atlas:
    textures = _shared_textures(constants.root / "assets")
    names = sorted(textures._originals)
    tiles = []
    for name in names:
        image = np.asarray(textures._originals[name]).transpose(1, 0, 2)  # crafter keeps [x, y]
        if image.shape[-1] == 3:
            image = np.concatenate([image, np.full((TILE, TILE, 1), 255, np.uint8)], -1)
        tiles.append(image.astype(np.uint8))
    names.append("outside")  # crafter draws the world's outside as flat gray
    tiles.append(np.concatenate([np.full((TILE, TILE, 3), 127, np.uint8), np.full((TILE, TILE, 1), 255, np.uint8)], -1))
    rgba = np.ascontiguousarray(np.stack(tiles))
    return Atlas(names, rgba, _opaque_rows(rgba))


def _opaque_rows(rgba: np.ndarray) -> np.ndarray:
    rows = np.zeros((len(rgba), 2), np.int64)
    for i, tex in enumerate(rgba):
        filled = np.nonzero((tex[..., 3] >= OPAQUE).any(1))[0]
        rows[i] = (filled[0], filled[-1]) if len(filled) else (0, TILE - 1)
    return rows


def load_atlas() -> Atlas:
    """A copy of crafter's textures for the renderer (tests may recolour one)."""
    return _crafter_atlas().copy()


def visible_share(semantic: np.ndarray, kind: str) -> float:
    """Share of the world's pixels (the frame less the hotbar) that show `kind` (0 when not in view)."""
    if kind not in KIND_IDS:
        raise ValueError(f"unknown kind {kind!r}; expected one of {list(KINDS)}")
    world = semantic[:WORLD_ROWS] if semantic.shape[0] == FRAME_SHAPE[0] else semantic
    return float(np.count_nonzero(world == KIND_IDS[kind])) / world.size


def visible_shares(semantic: np.ndarray) -> dict[str, float]:
    """Every kind in view -> its share of the world's pixels."""
    world = semantic[:WORLD_ROWS] if semantic.shape[0] == FRAME_SHAPE[0] else semantic
    return _shares(np.bincount(world.ravel(), minlength=len(KINDS)), world.size)


def _shares(counts: np.ndarray, size: int) -> dict[str, float]:
    """Kind -> its share of `size` pixels, from per-kind pixel counts (`KINDS` order), kinds not shown left out."""
    return {KINDS[i]: float(n) / size for i, n in enumerate(counts.tolist()) if n}


def in_view(view: FirstPersonFrame, world, player) -> dict[str, list[tuple[int, int]]]:
    """Every kind the frame shows -> the (dx, dy) offsets from the player of the tiles (materials) and
    objects it shows at least one pixel of, read from the frame's semantic and tile maps (kinds in
    `KINDS` order, tiles in x, y order)."""
    return view_contents(view, world, player)[0]


def view_contents(view: FirstPersonFrame, world, player) -> tuple[dict[str, list[tuple[int, int]]], dict[str, float]]:
    """(`in_view`, `visible_shares`) of a frame from one pass over its world pixels: what an
    environment's state records each step."""
    height = world.area[1]
    seen, counts = _seen(view.semantic, view.tiles, WORLD_ROWS, len(KINDS), world.area[0] * height)
    px, py = int(player.pos[0]), int(player.pos[1])
    out: dict[str, list[tuple[int, int]]] = {}
    for kind, tile in zip(*np.nonzero(seen)):
        out.setdefault(KINDS[kind], []).append((int(tile) // height - px, int(tile) % height - py))
    return out, _shares(counts, WORLD_ROWS * view.semantic.shape[1])


def upright(kind: str) -> bool:
    """Whether `kind` stands up from the ground (a block with a height, or a sprite): the lowest of its
    pixels in a column is where it meets the ground; every pixel of a floor is ground."""
    return kind in OBJECT_KINDS or BLOCKS.get(kind, (0.0,))[0] > 0


def foot_to_centre(kind: str) -> float:
    """Tiles along the facing from where an upright `kind` meets the ground nearest the eye to its
    tile's centre: half a tile for a block (its near face), 0 for a sprite (drawn at the centre)."""
    return 0.0 if kind in OBJECT_KINDS else 0.5


def project(forward: float, right: float = 0.0, height: float = 0.0) -> tuple[float, float]:
    """(row, column) at which a point `forward` tiles ahead (along the facing), `right` tiles to the
    right and `height` tiles above the ground appears (a pixel's centre is at +0.5)."""
    return HORIZON + FOCAL * (EYE - height) / forward, FRAME_SHAPE[1] / 2 + FOCAL * right / forward


class FirstPersonRenderer:
    """Draws `FirstPersonFrame`s of a crafter world from its player's eyes."""

    def __init__(self, shape: tuple[int, int] = FRAME_SHAPE, atlas: Atlas | None = None):
        if tuple(shape) != FRAME_SHAPE:
            raise ValueError(f"the first-person renderer draws frames of {FRAME_SHAPE[0]}x{FRAME_SHAPE[1]} "
                             f"(height x width) only; got {tuple(shape)}")
        self.atlas = atlas or load_atlas()
        self._blocks = self._block_table()
        self._lut_key: tuple | None = None
        self._bars: dict[tuple, np.ndarray] = {}
        self._item_view = crafter_engine.ItemView(_shared_textures(constants.root / "assets"), [FRAME_SHAPE[1] // TILE, 1])
        self._vignette = _vignette()

    def _block_table(self):
        names = list(BLOCKS)
        height = np.array([BLOCKS[n][0] for n in names], np.float64)
        split = np.array([BLOCKS[n][3] for n in names], np.float64)
        tex = np.array([[self.atlas.index(BLOCKS[n][i]) for i in (1, 2, 4)] for n in names], np.int64)
        kind = np.array([KIND_IDS[n] for n in names], np.uint8)
        return names, height, split, tex, kind

    def _material_lut(self, world) -> np.ndarray:
        """crafter's material id -> row of the block table."""
        key = tuple(world._mat_names.items())
        if key != self._lut_key:
            names = self._blocks[0]
            lut = np.zeros(256, np.int64)
            for mid, name in world._mat_names.items():
                name = "outside" if name is None else name
                if name not in names:
                    raise ValueError(f"no first-person block for material {name!r}; expected one of {names[1:]}")
                lut[mid] = names.index(name)
            self._lut, self._lut_key = lut, key
        return self._lut

    def render(self, world, player) -> FirstPersonFrame:
        """The player's view of `world` now, its semantic map and depth."""
        if player is None or getattr(player, "removed", False) or world[player.pos][1] is not player:
            raise ValueError("expected a world with its player (a crafter Player added to the world); "
                             f"got player {player!r}: reset the environment first")
        _, height, split, tex, kind = self._blocks
        lut = self._material_lut(world)
        fx, fy = (int(v) for v in player.facing)
        cam = np.array((player.pos[0] + 0.5, player.pos[1] + 0.5), np.float64)
        daylight = float(world.daylight)
        rgb = np.empty((WORLD_ROWS, FRAME_SHAPE[1], 3), np.float32)
        semantic = np.empty(FRAME_SHAPE, np.uint8)
        depth = np.empty(FRAME_SHAPE, np.float32)
        tiles = np.empty(FRAME_SHAPE, np.int32)
        sky = _sky(daylight)
        _cast(world._mat_map, lut, height, split, tex, kind, self.atlas.rgba, cam, fx, fy, sky,
              rgb, semantic, depth, tiles)
        sprites = self._sprites(world, player, cam, fx, fy)
        if len(sprites):
            _draw_sprites(sprites, self.atlas.rgba, self.atlas.rows, cam, fx, fy, sky[HORIZON], rgb, semantic, depth,
                          tiles, world.area[1])
        frame = np.empty(FRAME_SHAPE + (3,), np.uint8)
        noise = _NO_NOISE
        if daylight < 0.5:  # crafter's night noise, drawn as the top-down frame draws it: [column, row]
            noise = world.random.uniform(32, 127, (FRAME_SHAPE[1], WORLD_ROWS))
        _shade(rgb, daylight, noise, self._vignette, bool(player.sleeping), frame)
        frame[WORLD_ROWS:] = self._bar(player.inventory)
        semantic[WORLD_ROWS:] = HOTBAR
        depth[WORLD_ROWS:] = 0.0
        tiles[WORLD_ROWS:] = -1
        return FirstPersonFrame(frame, semantic, depth, tiles)

    def _sprites(self, world, player, cam, fx, fy) -> np.ndarray:
        """[N, 5] float64: x, y (tile), texture, kind id, lift of each object ahead, farthest first."""
        rx, ry = turn((fx, fy), "right")
        px, py = int(player.pos[0]), int(player.pos[1])
        r = int(MAX_DEPTH) + 1
        x0, y0 = max(px - r, 0), max(py - r, 0)
        window = world._obj_map[x0:px + r + 1, y0:py + r + 1]
        rows = []
        for wx, wy in zip(*np.nonzero(window)):
            obj = world._objects[window[wx, wy]]
            if obj is None or obj is player:
                continue
            ox, oy = int(wx) + x0, int(wy) + y0
            forward = (ox - px) * fx + (oy - py) * fy
            if forward <= 0:
                continue
            kind = type(obj).__name__.lower()
            if kind not in KIND_IDS:
                raise ValueError(f"no first-person sprite for object {kind!r}; expected one of {list(OBJECT_KINDS)}")
            rows.append((forward, (ox - px) * rx + (oy - py) * ry, ox, oy,
                         self.atlas.index(_sprite_texture(obj, (rx, ry))), KIND_IDS[kind], SPRITE_LIFT.get(kind, 0.0)))
        rows.sort(key=lambda row: (-row[0], row[1]))
        return np.array([row[2:] for row in rows], np.float64).reshape(-1, 5)

    def _bar(self, inventory: dict) -> np.ndarray:
        """The hotbar: crafter's inventory items and counts in 16 Minecraft-style slots."""
        key = tuple(inventory.items())
        bar = self._bars.get(key)
        if bar is None:
            canvas = _slots().transpose(1, 0, 2).copy()  # crafter draws items on [x, y] canvases
            unit = np.array((TILE, TILE))
            for index, (item, amount) in enumerate(inventory.items()):
                if amount >= 1:
                    self._item_view._item(canvas, index, item, unit)
                    self._item_view._amount(canvas, index, amount, unit)
            bar = np.ascontiguousarray(canvas.transpose(1, 0, 2))
            bar.flags.writeable = False
            if len(self._bars) > 64:
                self._bars.clear()
            self._bars[key] = bar
        return bar


def _sprite_texture(obj, right: tuple[int, int]) -> str:
    if isinstance(obj, objects.Arrow):  # an arrow points the way it flies, seen from the player
        side = int(obj.facing[0]) * right[0] + int(obj.facing[1]) * right[1]
        return "arrow-right" if side > 0 else "arrow-left" if side < 0 else "arrow-up"
    return obj.texture


def _slots() -> np.ndarray:
    """The empty hotbar [16, 256, 3]: dark slots framed in light gray, as Minecraft's."""
    slot = np.full((TILE, TILE, 3), 139, np.uint8)
    slot[1:-1, 1:-1] = 55
    slot[1, 1:-1] = slot[1:-1, 1] = 40  # inner shadow on the top and left
    return np.tile(slot, (1, FRAME_SHAPE[1] // TILE, 1))


@functools.lru_cache(1)
def _vignette() -> np.ndarray:
    """crafter's night vignette (`LocalView._vignette`, stddev 0.5) for the world rows, [row, column]."""
    shape = (FRAME_SHAPE[1], WORLD_ROWS)
    xs, ys = np.meshgrid(np.linspace(-1, 1, shape[0]), np.linspace(-1, 1, shape[1]))
    return np.ascontiguousarray((1 - np.exp(-0.5 * (xs ** 2 + ys ** 2) / (0.5 ** 2))).astype(np.float64))


_NO_NOISE = np.zeros((0, 0), np.float64)


def _sky(daylight: float) -> np.ndarray:
    """Sky colour per world row, float32 [144, 3]: zenith to horizon, day to night; the horizon's
    colour below it (the fog)."""
    day = min(max(daylight, 0.0), 1.0)
    zenith = day * np.array(DAY_SKY[0], np.float64) + (1 - day) * np.array(NIGHT_SKY[0], np.float64)
    horizon = day * np.array(DAY_SKY[1], np.float64) + (1 - day) * np.array(NIGHT_SKY[1], np.float64)
    a = np.clip(np.arange(WORLD_ROWS, dtype=np.float64) / HORIZON, 0, 1)[:, None]
    return ((1 - a) * zenith + a * horizon).astype(np.float32)


@njit(cache=True)
def _fog(color: float, fog: float, t: float) -> float:
    a = (t - FOG_START) / (MAX_DEPTH - FOG_START)
    if a <= 0.0:
        return color
    if a >= 1.0:
        return fog
    return color * (1.0 - a) + fog * a


@njit(cache=True)
def _put(rgb, semantic, depth, tiles, r, c, tex, ti, tr, tc, shade, kind, t, fog, tile):
    tr = min(max(tr, 0), 15)
    tc = min(max(tc, 0), 15)
    for k in range(3):
        rgb[r, c, k] = _fog(np.float32(tex[ti, tr, tc, k]) * shade, fog[k], t)
    semantic[r, c] = kind
    depth[r, c] = t
    tiles[r, c] = tile


@njit(cache=True)
def _sky_pixel(rgb, semantic, depth, tiles, r, c, sky):
    for k in range(3):
        rgb[r, c, k] = sky[r, k]
    semantic[r, c] = SKY
    depth[r, c] = np.inf
    tiles[r, c] = -1


@njit(cache=True)
def _flat(rgb, semantic, depth, tiles, c, r_from, r_far, drop, cx, cy, dx, dy, mx, my, tex, ti, kind, sky, fog, tile):
    """Rows `r_from` up to `r_far` of column `c` showing a horizontal face `drop` tiles below the eye
    (the ground, or a low block's top) of the cell (mx, my) (`tile`), along the ray from (cx, cy) in
    the direction (dx, dy); beyond the far plane, sky."""
    for r in range(r_from, max(r_far, 0) - 1, -1):
        t = FOCAL * drop / (r + 0.5 - HORIZON)
        if t > MAX_DEPTH:
            _sky_pixel(rgb, semantic, depth, tiles, r, c, sky)
            continue
        wx, wy = cx + dx * t - mx, cy + dy * t - my
        _put(rgb, semantic, depth, tiles, r, c, tex, ti, int(wy * 16), int(wx * 16), 1.0, kind, t, fog, tile)


@njit(cache=True)
def _seen(semantic, tiles, rows, n_kinds, n_tiles):
    """([kind, tile]: whether any of the first `rows` rows shows that kind on that tile, [kind]: how
    many of their pixels show that kind)."""
    seen = np.zeros((n_kinds, n_tiles), np.bool_)
    counts = np.zeros(n_kinds, np.int64)
    for r in range(rows):
        for c in range(semantic.shape[1]):
            k = semantic[r, c]
            counts[k] += 1
            t = tiles[r, c]
            if t >= 0:
                seen[k, t] = True
    return seen, counts


@njit(cache=True)
def _cast(mat, lut, height, split, tex_ids, kinds, tex, cam, fx, fy, sky, rgb, semantic, depth, tiles):
    """Ray cast each column through the grid, front to back; rows are filled from the bottom up,
    and a row once drawn is final (blocks have no overhangs)."""
    rows, cols = rgb.shape[0], rgb.shape[1]
    rx, ry = -fy, fx
    cx, cy = cam[0], cam[1]
    fog = sky[HORIZON]
    outside = lut[0]
    for c in range(cols):
        s = (c + 0.5 - cols * 0.5) / FOCAL
        dx, dy = fx + rx * s, fy + ry * s
        mx, my = int(np.floor(cx)), int(np.floor(cy))
        stepx = 1 if dx > 0 else -1
        stepy = 1 if dy > 0 else -1
        deltax = abs(1.0 / dx) if dx != 0 else 1e30
        deltay = abs(1.0 / dy) if dy != 0 else 1e30
        sidex = ((mx + 1 - cx) if dx > 0 else (cx - mx)) * deltax
        sidey = ((my + 1 - cy) if dy > 0 else (cy - my)) * deltay
        t0, side, clip = 0.0, 0, rows
        while clip > 0 and t0 < MAX_DEPTH:
            if sidex < sidey:
                t1, nside = sidex, 0
            else:
                t1, nside = sidey, 1
            inside = 0 <= mx < mat.shape[0] and 0 <= my < mat.shape[1]
            b = lut[mat[mx, my]] if inside else outside
            tile = mx * mat.shape[1] + my if inside else -1
            h = height[b]
            top = HORIZON + FOCAL * EYE / max(t1, 1e-9) - 0.5  # floor rows lie below this
            if h > 0 and t0 > 0:
                # the face the ray entered through, at depth t0
                hit = (cy + dy * t0 - my) if side == 0 else (cx + dx * t0 - mx)
                flip = (dx < 0) if side == 0 else (dy > 0)
                u = 1.0 - hit if flip else hit
                tc = int(u * 16)
                shade = FACE_SHADE[side]
                r_top = int(np.ceil(HORIZON + FOCAL * (EYE - h) / t0 - 0.5))
                r_bot = int(np.floor(HORIZON + FOCAL * EYE / t0 - 0.5))
                for r in range(min(r_bot, clip - 1), max(r_top, 0) - 1, -1):
                    y = EYE - (r + 0.5 - HORIZON) * t0 / FOCAL  # height on the face
                    if y < split[b]:
                        ti, v = tex_ids[b, 0], y / split[b]
                    else:
                        ti, v = tex_ids[b, 1], y - split[b]
                    v = v - np.floor(v)
                    _put(rgb, semantic, depth, tiles, r, c, tex, ti, 15 - int(v * 16), tc, shade, kinds[b], t0, fog,
                         tile)
                clip = min(clip, max(r_top, 0))
                if h < EYE:  # the block's top, seen from above
                    r_far = int(np.ceil(HORIZON + FOCAL * (EYE - h) / t1 - 0.5))
                    _flat(rgb, semantic, depth, tiles, c, min(clip - 1, rows - 1), r_far, EYE - h, cx, cy, dx, dy,
                          mx, my, tex, tex_ids[b, 2], kinds[b], sky, fog, tile)
                    clip = min(clip, max(r_far, 0))
            else:
                r_far = int(np.ceil(top))
                _flat(rgb, semantic, depth, tiles, c, clip - 1, r_far, EYE, cx, cy, dx, dy, mx, my, tex,
                      tex_ids[b, 2], kinds[b], sky, fog, tile)
                clip = min(clip, max(r_far, 0))
            if nside == 0:
                sidex += deltax
                mx += stepx
            else:
                sidey += deltay
                my += stepy
            t0, side = t1, nside
        for r in range(clip):
            _sky_pixel(rgb, semantic, depth, tiles, r, c, sky)


@njit(cache=True)
def _draw_sprites(sprites, tex, opaque_rows, cam, fx, fy, fog, rgb, semantic, depth, tiles, world_height):
    """Upright sprites one tile wide, standing at their tile's centre, facing the camera; a texel
    is drawn where it is opaque and nearer than what is there."""
    rows, cols = rgb.shape[0], rgb.shape[1]
    rx, ry = -fy, fx
    for i in range(sprites.shape[0]):
        ox, oy = sprites[i, 0] + 0.5 - cam[0], sprites[i, 1] + 0.5 - cam[1]
        ti, kind, lift = int(sprites[i, 2]), np.uint8(sprites[i, 3]), sprites[i, 4]
        tile = int(sprites[i, 0]) * world_height + int(sprites[i, 1])
        z = ox * fx + oy * fy
        x = ox * rx + oy * ry
        if z < NEAR or z > MAX_DEPTH:
            continue
        first, last = opaque_rows[ti, 0], opaque_rows[ti, 1]
        tall = (last - first + 1) / 16.0
        left = cols * 0.5 + FOCAL * (x - 0.5) / z
        width = FOCAL / z
        top = HORIZON + FOCAL * (EYE - lift - tall) / z
        bottom = HORIZON + FOCAL * (EYE - lift) / z
        c0, c1 = max(int(np.ceil(left - 0.5)), 0), min(int(np.floor(left + width - 0.5)), cols - 1)
        r0, r1 = max(int(np.ceil(top - 0.5)), 0), min(int(np.floor(bottom - 0.5)), rows - 1)
        for c in range(c0, c1 + 1):
            tc = min(int((c + 0.5 - left) / width * 16), 15)
            for r in range(r0, r1 + 1):
                if z >= depth[r, c]:
                    continue
                tr = min(first + int((r + 0.5 - top) / (bottom - top) * (last - first + 1)), last)
                if tex[ti, tr, tc, 3] < OPAQUE:
                    continue
                _put(rgb, semantic, depth, tiles, r, c, tex, ti, tr, tc, 1.0, kind, z, fog, tile)


@njit(cache=True, inline="always")
def _night(value: float, gray: float, tint: float) -> float:
    v = np.floor(gray + 0.4 * (value - gray) + 0.5)
    return min(max(v, 0.0), 255.0) * 0.5 + tint


@njit(cache=True, inline="always")
def _asleep(red: float, green: float, blue: float) -> tuple[float, float, float]:
    """crafter's sleep view: PIL's grayscale, then half way to (0, 0, 16)."""
    gray = (red * 19595 + green * 38470 + blue * 7471 + 32768) // 65536
    return np.floor(0.5 * gray), np.floor(0.5 * gray), np.floor(0.5 * gray + 8.0)


@njit(cache=True, error_model="numpy")
def _shade(rgb, daylight, noise, vignette, sleeping, out):
    """crafter's day and night (`CrafterCore._light`: noise towards the edges below daylight 0.5,
    desaturation, a blue tint, mixed by daylight) and its sleep view (gray, tinted), to uint8.

    One flat loop over the pixels, the noise read along it ([row, column]) and the case (full day,
    dusk, night with noise, asleep) fixed for the whole loop, so that LLVM vectorises it: 3-4x faster
    than the loop that branched per pixel (0.8-1.1 -> 0.2-0.3 ms a frame below full daylight,
    2026-11-30, the Intel Xeon host), the same bytes (tests/sim/test_sim_firstperson.py keeps the
    per-pixel version as the reference)."""
    n = rgb.shape[0] * rgb.shape[1]
    src, dst = rgb.reshape(n * 3), out.reshape(out.size)  # out may hold the hotbar rows below: they stay
    noisy = noise.shape[0] > 0
    grain = np.ascontiguousarray(noise.T).reshape(n) if noisy else np.zeros(n)
    spread = np.ascontiguousarray(vignette).reshape(n)
    if sleeping:  # rare: one loop for every case
        _shade_pixels(src, dst, grain, spread, daylight, daylight < 1.0, noisy, True)
    elif daylight >= 1.0:
        _shade_pixels(src, dst, grain, spread, daylight, False, False, False)
    elif noisy:
        _shade_pixels(src, dst, grain, spread, daylight, True, True, False)
    else:
        _shade_pixels(src, dst, grain, spread, daylight, True, False, False)


@njit(cache=True, error_model="numpy", inline="always")
def _shade_pixels(src, dst, grain, spread, daylight, dim, noisy, sleeping):
    """`_shade`'s loop; inlined with constant `dim` (daylight below 1), `noisy` and `sleeping`, whose
    branches then leave the loop."""
    half = np.float32(0.5)
    strength, dusk = 2 * (0.5 - daylight), 1 - daylight
    for p in range(len(spread)):
        k = 3 * p
        red = np.float64(np.floor(src[k] + half))
        green = np.float64(np.floor(src[k + 1] + half))
        blue = np.float64(np.floor(src[k + 2] + half))
        if dim:
            nr, ng, nb = red, green, blue
            if noisy:
                mask = strength * spread[p]
                keep, speck = 1 - mask, mask * grain[p]
                nr, ng, nb = np.floor(red * keep + speck), np.floor(green * keep + speck), np.floor(blue * keep + speck)
            gray = np.floor(nr * 0.299 + ng * 0.587 + nb * 0.114 + 0.5)
            red = np.floor(daylight * red + dusk * _night(nr, gray, 0.0))
            green = np.floor(daylight * green + dusk * _night(ng, gray, 8.0))
            blue = np.floor(daylight * blue + dusk * _night(nb, gray, 32.0))
        if sleeping:
            red, green, blue = _asleep(red, green, blue)
        dst[k] = np.uint8(min(max(red, 0.0), 255.0))
        dst[k + 1] = np.uint8(min(max(green, 0.0), 255.0))
        dst[k + 2] = np.uint8(min(max(blue, 0.0), 255.0))
