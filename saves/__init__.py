"""Saves: the msgpack event-log file format and the save directory."""

from saves.format import (
    CHECKPOINT_EVERY,
    FORMAT_VERSION,
    MAGIC,
    MAX_RECORD,
    Loaded,
    SaveError,
    SaveWriter,
    export_json,
    export_text,
    load,
    rewrite,
    verify,
)
from saves.store import (
    EXTENSION,
    SaveInfo,
    SeatInfo,
    latest_unfinished,
    list_saves,
    new_save_path,
    save_dir,
    save_info,
)

__all__ = [
    "CHECKPOINT_EVERY",
    "EXTENSION",
    "FORMAT_VERSION",
    "MAGIC",
    "MAX_RECORD",
    "Loaded",
    "SaveError",
    "SaveInfo",
    "SaveWriter",
    "SeatInfo",
    "export_json",
    "export_text",
    "latest_unfinished",
    "list_saves",
    "load",
    "new_save_path",
    "rewrite",
    "save_dir",
    "save_info",
    "verify",
]
