"""The base every layer may use: the user's private cache folder and how a cache entry is judged
fresh (`cache`), and reading a file safely with bounded size and located failures (`files`).

Imports nothing of rulesdsl but the package's version."""
