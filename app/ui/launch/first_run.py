"""The first-run choice: the demo show, or connecting a real one."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QLabel, QPushButton, QVBoxLayout, QWidget

from app import APP_NAME


class FirstRunDialog(QDialog):
    """Asks how to start; `choice` is "demo", "connect" or None (closed)."""

    def __init__(self, parent: QWidget | None = None, *, message: str | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Welcome to {APP_NAME}")
        self.choice: str | None = None
        text = message or (
            "ShowDesk keeps a fast local copy of a Perenso TradeShow show and sends your edits "
            "to it safely.\n\nTry it on the built-in demo show, or connect to your show."
        )
        intro = QLabel(text, self, wordWrap=True)
        self.demo_button = QPushButton("Open the demo show", self)
        self.connect_button = QPushButton("Connect to a show…", self)
        self.demo_button.clicked.connect(self.on_demo_button_clicked)
        self.connect_button.clicked.connect(self.on_connect_button_clicked)
        layout = QVBoxLayout(self)
        for widget in (intro, self.demo_button, self.connect_button):
            layout.addWidget(widget)
        self.demo_button.setDefault(True)

    def on_demo_button_clicked(self) -> None:
        self.choice = "demo"
        self.accept()

    def on_connect_button_clicked(self) -> None:
        self.choice = "connect"
        self.accept()
