"""Google accounts: sign-in (auth), Gmail and Calendar. They need the ``[google]`` extra;
this module itself imports none of it, so an account's keyring entry can be named (and
forgotten) without it."""


def secret_name(account: str) -> str:
    """The keyring entry holding the account's authorized-user JSON."""
    return f"google:{account}"
