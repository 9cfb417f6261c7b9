// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// A minimal smart-contract wallet: EIP-1271 says a signature is valid when its owner's key made it.
contract OwnedWallet {
    bytes4 internal constant MAGIC = 0x1626ba7e;
    uint256 internal constant HALF_N = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;
    address public immutable owner;

    constructor(address owner_) {
        owner = owner_;
    }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        if (signature.length != 65) return 0xffffffff;
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (uint256(s) > HALF_N) return 0xffffffff;
        address signer = ecrecover(hash, v, r, s);
        return signer != address(0) && signer == owner ? MAGIC : bytes4(0xffffffff);
    }
}

/// Deploys OwnedWallets at CREATE2 addresses, so a wallet can sign (ERC-6492) before it exists.
contract OwnedWalletFactory {
    function deploy(address owner_, bytes32 salt) external returns (address) {
        return address(new OwnedWallet{salt: salt}(owner_));
    }
}
